(ns ration.jepsen.history
  "Histories as Jepsen keeps them: a vector of op maps with :index :time :type :process :f
  :value (+ :error, :exception ...). :type is :invoke, :ok, :fail or :info; :process is an
  integer or :nemesis; :time is nanoseconds since the test started (one monotonic clock, the
  harness JVM's). Written one op per line as EDN (history.edn) and as tab-separated text
  (history.txt), so Jepsen's own tools can read them where Clojars is reachable."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]))

(defn invoke? [op] (= :invoke (:type op)))
(defn ok? [op] (= :ok (:type op)))
(defn fail? [op] (= :fail (:type op)))
(defn info? [op] (= :info (:type op)))
(defn client-op? [op] (integer? (:process op)))

(defn index
  "Stamps :index 0..n-1 in order (ops from a recorder already carry it)."
  [history]
  (into [] (map-indexed (fn [i op] (assoc op :index i))) history))

(defn pairs
  "Pairs each client invocation with its completion: a vector of [invoke completion-or-nil].
  A process has at most one outstanding op, so the next op of the same process completes it."
  [history]
  (loop [ops (seq history), open {}, out []]
    (if-not ops
      (into out (map (fn [[_ inv]] [inv nil])) (sort-by (comp :index val) open))
      (let [op (first ops), p (:process op)]
        (cond
          (invoke? op) (recur (next ops) (assoc open p op) out)
          (contains? open p) (recur (next ops) (dissoc open p) (conj out [(open p) op]))
          :else (recur (next ops) open out))))))

(defn completions
  "Client completions, each with its invocation attached under :invoke-time and :invoke-value."
  [history]
  (for [[inv c] (pairs history) :when (and c (client-op? c))]
    (assoc c :invoke-time (:time inv) :invoke-value (:value inv))))

(defn write-edn!
  "history.edn: one op per line."
  [file history]
  (with-open [w (io/writer file)]
    (binding [*print-length* nil, *print-level* nil, *print-namespace-maps* false]
      (doseq [op history]
        (.write w (pr-str (dissoc op :exception-object)))
        (.write w "\n")))))

(defn write-txt!
  "history.txt: process, type, f, value [, error], tab-separated."
  [file history]
  (with-open [w (io/writer file)]
    (doseq [op history]
      (.write w (str/join "\t" (cond-> [(:process op) (:type op) (:f op) (pr-str (:value op))]
                                 (:error op) (conj (pr-str (:error op))))))
      (.write w "\n"))))

(defn read-edn
  "Reads history.edn (one op per line; blank lines skipped)."
  [file]
  (with-open [r (io/reader file)]
    (->> (line-seq r)
         (remove str/blank?)
         (mapv #(edn/read-string {:default (fn [_tag v] v)} %)))))
