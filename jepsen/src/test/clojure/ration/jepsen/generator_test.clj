(ns ration.jepsen.generator-test
  (:require [clojure.test :refer [deftest is]]
            [ration.jepsen.core :as core]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.nemesis :as nemesis]))

(defn drain
  "Runs gen with every thread always free at advancing times; returns the ops (bounded)."
  [g threads step-ns]
  (loop [g g, t 0, out [], i 0]
    (let [ctx {:time t :free-threads (set threads) :threads threads :workers (zipmap threads threads)}
          r (gen/op g {} ctx)]
      (cond
        (or (nil? r) (> i 10000)) out
        (= :pending (first r)) (recur (second r) (+ t step-ns) out (inc i))
        :else (recur (second r) (max t (:time (first r))) (conj out (first r)) (inc i))))))

(deftest maps-seqs-limit-once
  (is (= [:a] (map :f (drain {:f :a} [0] 1))))
  (is (= [:a :b] (map :f (drain [{:f :a} {:f :b}] [0] 1))))
  (is (= 3 (count (drain (gen/limit 3 (gen/repeat {:f :a})) [0] 1))))
  (is (= 1 (count (drain (gen/once (gen/repeat {:f :a})) [0] 1)))))

(deftest time-limit-and-stagger
  (let [ops (drain (gen/time-limit 1 (gen/stagger 0.1 (gen/repeat {:f :a}))) [0 1] 1000000)]
    (is (< 3 (count ops) 40) (str (count ops) " ops in 1 s at ~10/s"))
    (is (every? #(< (:time %) 1000000000) ops))))

(deftest routing-and-mix
  (let [ops (drain (gen/limit 50 (gen/clients+nemesis (gen/mix [(gen/repeat {:f :a}) (gen/repeat {:f :b})])
                                                      (gen/repeat {:f :kill})))
                   [0 1 :nemesis] 1)]
    (is (every? #(if (= :kill (:f %)) (= :nemesis (:process %)) (integer? (:process %))) ops))
    (is (= #{:a :b :kill} (set (map :f ops))))))

(deftest sleep-then-phases
  (let [ops (drain (gen/phases {:f :a} (gen/sleep 1) {:f :b}) [0] 100000000)]
    (is (= [:a :b] (map :f ops)))
    (is (<= 1000000000 (:time (second ops))))))

(deftest phases-nested-in-clients-do-not-wait-for-the-nemesis
  ;; The nemesis thread is free here; a synchronize inside gen/clients must still fire (it once
  ;; waited for :nemesis too, which is never in the clients' view, and hung the final reads).
  (let [ops (drain (gen/clients (gen/phases (gen/each-thread-once {:f :r1}) (gen/each-thread-once {:f :r2})))
                   [0 1 :nemesis] 1)]
    (is (= [:r1 :r1 :r2 :r2] (map :f ops)))
    (is (every? integer? (map :process ops)))))

(deftest a-busy-client-side-does-not-restart-the-nemesis-sleep
  ;; Clients always have an op ready (40/s); the nemesis sleeps 8 s, acts, holds 8 s, heals.
  ;; Before the fix, every client op threw away the nemesis side's sleep deadline: no fault ever.
  (let [g (gen/clients+nemesis (gen/stagger 0.025 (gen/repeat {:f :admit}))
                               (gen/cycle [[(gen/sleep 8) {:f :start} (gen/sleep 8) {:f :stop}]]))
        ops (loop [g g, t 0, out [], i 0]
              (let [ctx {:time t :free-threads #{0 :nemesis} :threads [0 :nemesis] :workers {0 0 :nemesis :nemesis}}
                    r (gen/op g {} ctx)]
                (cond
                  (or (nil? r) (> i 100000) (> t 20e9)) out
                  (= :pending (first r)) (recur (second r) (+ t 10000000) out (inc i))
                  :else (recur (second r) (max t (:time (first r))) (conj out (first r)) (inc i)))))
        faults (remove #(= :admit (:f %)) ops)]
    (is (= [:start :stop] (map :f faults)))
    (is (= [8 16] (map #(Math/round (/ (:time %) 1e9)) faults)))
    (is (< 500 (count ops)) "clients kept going")))

(defn- nemesis-draws
  "What a nemesis that draws gen/rand-double on each of three ops draws, run by the interpreter
  (its own worker thread) under seed, as core/run! binds it."
  [seed]
  (let [n (reify nemesis/Nemesis
            (setup! [this _] this)
            (invoke! [_ _ op] (assoc op :type :info :value (gen/rand-double)))
            (teardown! [_ _]))
        test {:seed seed :concurrency 0 :nodes [] :nemesis n :start-nanos (System/nanoTime)}]
    (binding [gen/*rng* (java.util.Random. seed)]
      (->> (core/run-generator! test (gen/nemesis [{:f :draw} {:f :draw} {:f :draw}]))
           (keep #(when (number? (:value %)) (:value %)))
           vec))))

(deftest a-seed-reproduces-what-the-nemesis-draws
  ;; The nemesis acts on a thread of its own, which sees only gen/*rng*'s root binding unless
  ;; the interpreter binds one: every seed then drew the same targets, and the same seed twice
  ;; in one JVM drew different ones.
  (let [a (nemesis-draws 1), b (nemesis-draws 1), c (nemesis-draws 2)]
    (is (= 3 (count a)))
    (is (= a b))
    (is (not= a c))))
