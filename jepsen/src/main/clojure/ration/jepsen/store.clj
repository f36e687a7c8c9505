(ns ration.jepsen.store
  "store/<test-name>/<yyyyMMddTHHmmss>/ with test.edn, history.edn, history.txt, results.edn,
  node logs under <node>/, latency-raw.png and rate.png (gnuplot; skipped with a note when it is
  missing), timeline.html (first 10,000 ops); symlink store/latest."
  (:require [clojure.java.io :as io]
            [clojure.pprint :refer [pprint]]
            [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.history :as h]
            [ration.jepsen.util :as u])
  (:import (java.time LocalDateTime)
           (java.time.format DateTimeFormatter)))

(defn run-dir
  "A fresh directory for a run of test-name under root."
  [root test-name]
  (let [ts (.format (LocalDateTime/now) (DateTimeFormatter/ofPattern "yyyyMMdd'T'HHmmss"))
        d (loop [i 0]
            (let [d (io/file root test-name (if (zero? i) ts (str ts "-" i)))]
              (if (.exists d) (recur (inc i)) d)))]
    (.mkdirs d)
    d))

(defn link-latest! [root dir]
  (let [l (io/file root "latest")]
    (u/sh-quiet "ln" "-sfn" (str (.getCanonicalPath (io/file dir))) (str l))))

(defn write-pprint! [file x]
  (binding [*print-length* nil, *print-level* nil, *print-namespace-maps* false]
    (spit file (with-out-str (pprint x)))))

(defn copy-logs!
  "node -> files, copied to dir/<node>/."
  [dir logs]
  (doseq [[node files] logs, ^java.io.File f files :when (.exists f)]
    (let [d (io/file dir (name node))]
      (.mkdirs d)
      (io/copy f (io/file d (.getName f))))))

;; ------------------------------------------------------------------ plots

(defn- nemesis-intervals
  "[[start-s end-s]] between a nemesis start op and the next heal op."
  [history]
  (let [ns (filter #(and (= :nemesis (:process %)) (= :info (:type %))) history)
        completions (take-nth 2 (rest ns))]
    (loop [ops completions, open nil, out []]
      (if-let [op (first ops)]
        (let [heal? (#{:stop-partition :stop-loss :start :resume :reset} (:f op))]
          (cond
            (and (not heal?) (nil? open)) (recur (rest ops) (:time op) out)
            (and heal? open) (recur (rest ops) nil (conj out [(u/ns->s open) (u/ns->s (:time op))]))
            :else (recur (rest ops) open out)))
        (if open (conj out [(u/ns->s open) (u/ns->s (:time (last history)))]) out)))))

(defn- gnuplot! [dir script]
  (let [{:keys [exit err]} (u/sh-quiet "gnuplot" :in script :dir (str dir))]
    (when-not (zero? exit) (warn "gnuplot failed:" err))
    (zero? exit)))

(defn plots!
  "latency-raw.png and rate.png; returns a note for results."
  [dir history]
  (if-not (zero? (:exit (u/sh-quiet "which" "gnuplot")))
    {:plots :skipped :reason "gnuplot not installed (apt-get install gnuplot-nox)"}
    (let [cs (h/completions history)
          fs (sort (distinct (map :f cs)))
          shade (str/join "\n" (map-indexed (fn [i [a b]]
                                              (format "set object %d rect from %.3f, graph 0 to %.3f, graph 1 fc rgb '#ffcccc' fs solid 0.4 behind" (inc i) a b))
                                            (nemesis-intervals history)))]
      ;; Data files: one per f × type for latency; per f for rate (1 s buckets).
      (doseq [f fs, t [:ok :fail :info]]
        (spit (io/file dir (str "lat-" (name f) "-" (name t) ".dat"))
              (str/join "\n" (for [c cs :when (and (= f (:f c)) (= t (:type c)))]
                               (format "%.4f %.4f" (u/ns->s (:invoke-time c)) (/ (- (:time c) (:invoke-time c)) 1e6)))))
        (spit (io/file dir (str "rate-" (name f) "-" (name t) ".dat"))
              (str/join "\n" (for [[sec n] (sort (frequencies (for [c cs :when (and (= f (:f c)) (= t (:type c)))]
                                                               (long (u/ns->s (:time c))))))]
                               (str sec " " n)))))
      (let [series (for [f fs, t [:ok :fail :info]
                         :when (.exists (io/file dir (str "lat-" (name f) "-" (name t) ".dat")))
                         :when (pos? (.length (io/file dir (str "lat-" (name f) "-" (name t) ".dat"))))]
                     [f t])
            lat (str "set terminal png size 900,400\nset output 'latency-raw.png'\n"
                     "set title 'latency (raw)'\nset xlabel 'time (s)'\nset ylabel 'latency (ms)'\n"
                     "set logscale y\nset key outside right\n" shade "\n"
                     "plot " (str/join ", " (for [[f t] series]
                                             (format "'lat-%s-%s.dat' using 1:2 with points pt 7 ps 0.4 title '%s %s'" (name f) (name t) (name f) (name t)))) "\n")
            rate (str "set terminal png size 900,400\nset output 'rate.png'\n"
                      "set title 'throughput'\nset xlabel 'time (s)'\nset ylabel 'ops/s'\nset key outside right\n" shade "\n"
                      "plot " (str/join ", " (for [[f t] series]
                                              (format "'rate-%s-%s.dat' using 1:2 with lines title '%s %s'" (name f) (name t) (name f) (name t)))) "\n")
            ok (and (seq series) (gnuplot! dir lat) (gnuplot! dir rate))]
        (doseq [^java.io.File f (.listFiles (io/file dir)) :when (str/ends-with? (.getName f) ".dat")]
          (.delete f))
        {:plots (if ok [:latency-raw.png :rate.png] :failed)}))))

;; ------------------------------------------------------------------ timeline

(defn- esc [s] (-> (str s) (str/replace "&" "&amp;") (str/replace "<" "&lt;") (str/replace ">" "&gt;")))

(defn timeline!
  "timeline.html: one column per process, one box per op from invocation to completion."
  [dir history]
  (let [history (take 10000 history)
        pairs (h/pairs history)
        procs (vec (sort-by str (distinct (map (comp :process first) pairs))))
        col (into {} (map-indexed (fn [i p] [p i]) procs))
        px-per-s 60.0
        end (reduce max 1 (map :time history))
        color {:ok "#B3F3B5" :fail "#F2B3B3" :info "#FFFAA6" nil "#EEEEEE"}
        boxes (for [[inv c] pairs
                    :let [top (* px-per-s (u/ns->s (:time inv)))
                          bot (* px-per-s (u/ns->s (if c (:time c) end)))]]
                (format "<div class='op' style='left:%dpx;top:%.1fpx;height:%.1fpx;background:%s' title='%s'>%s</div>"
                        (* 110 (col (:process inv))) top (max 2.0 (- bot top)) (color (:type c))
                        (esc (str (:index inv) " " (:process inv) " " (:f inv) " " (pr-str (:value inv))
                                  "\n-> " (when c (str (:type c) " " (pr-str (:value c)) " " (pr-str (:error c))))))
                        (esc (str (name (:f inv)) " " (name (or (:type c) :open))))))]
    (spit (io/file dir "timeline.html")
          (str "<!DOCTYPE html><html><head><meta charset='utf-8'><title>timeline</title><style>"
               ".op{position:absolute;width:105px;font:9px monospace;overflow:hidden;border:1px solid #999;box-sizing:border-box}"
               ".hdr{position:absolute;top:0;width:105px;font:11px sans-serif;font-weight:bold}"
               "</style></head><body><p>Time flows down, " px-per-s " px per second; hover for values. Green ok, red fail, yellow info.</p>"
               "<div style='position:relative'>"
               (str/join (for [p procs] (format "<div class='hdr' style='left:%dpx'>%s</div>" (* 110 (col p)) (esc p))))
               "<div style='position:relative;top:20px'>" (str/join "\n" boxes) "</div></div></body></html>"))))

(defn save!
  "Writes the history, results and reports into dir."
  [dir test history results]
  (h/write-edn! (io/file dir "history.edn") history)
  (h/write-txt! (io/file dir "history.txt") history)
  (let [notes (try (plots! dir history) (catch Throwable t {:plots :failed :reason (str t)}))]
    (try (timeline! dir history) (catch Throwable t (warn t "timeline failed")))
    (let [results (assoc results :reports notes)]
      (write-pprint! (io/file dir "results.edn") results)
      results)))
