(ns ration.jepsen.pool-checker-test
  "The pool checkers on synthetic histories (one violation per rule), then real WorkerPools
  driven through the pool workload's own client and recording jobs: honest pools whose slots
  sum to C pass, and the same run with one pool that ignores its lease fails :concurrency."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.checker.pool :as pc]
            [ration.jepsen.client :as client]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.pool :as pool])
  (:import (dev.ration.client.pool PoolOptions SlotSource WorkerPool)
           (java.time Duration)
           (java.util.concurrent CountDownLatch TimeUnit)))

(defn ms [x] (long (* x 1000000)))

(defn hist
  "Ops as [process type f value time-ms]."
  [& ops]
  (h/index (for [[p t f v tm] ops] {:process p :type t :f f :value v :time (ms tm)})))

(defn run-op
  "A job run of pool/job on side process p from t0 to t1 (nil: never ended)."
  [p pool job t0 t1]
  (cond-> [[p :invoke :run {:pool pool :job-id job :attempt 1} t0]]
    t1 (conj [p :ok :run {:pool pool :job-id job :attempt 1 :cancelled? false} t1])))

(defn submit-op [p pool ids t0 t1]
  [[p :invoke :submit {:pool pool :jobs (vec (repeat (count ids) 10))} t0]
   [p :ok :submit {:pool pool :job-ids ids} t1]])

(defn drain-op [p pool results t0 t1 & {:keys [overrun-ids unterminated] :or {overrun-ids [] unterminated []}}]
  [[p :invoke :drain {:pool pool} t0]
   [p :ok :drain {:pool pool :results results :overrun-ids overrun-ids :unterminated unterminated} t1]])

(def opts {:concurrency 2})

(defn check [checker history] (c/check checker {} history opts))

(deftest concurrency-pass-and-violation
  (testing "two jobs at once under C = 2; an end and a start at the same instant do not overlap"
    (let [r (check (pc/concurrency) (apply hist (concat (run-op 100 0 1 0 10) (run-op 101 1 1 5 20)
                                                        (run-op 102 0 2 10 30))))]
      (is (true? (:valid? r)))
      (is (= 2 (get-in r [:peak :running])))))
  (testing "three at once is one over C"
    (let [r (check (pc/concurrency) (apply hist (concat (run-op 100 0 1 0 10) (run-op 101 1 1 5 20)
                                                        (run-op 102 0 2 8 30))))]
      (is (false? (:valid? r)))
      (is (= 1 (:violation-count r)))
      (is (= {:pool 0 :job-id 2} (get-in r [:violations 0 :job])))))
  (testing "a job its pool reported as an overrun is allowed beyond C, and only that one"
    (let [h (concat (run-op 100 0 1 0 10) (run-op 101 1 1 5 20) (run-op 102 0 2 8 30)
                    (drain-op 0 0 {1 [:succeeded 1 false] 2 [:succeeded 1 true]} 40 41)
                    (drain-op 1 1 {1 [:succeeded 1 false]} 40 41))]
      (is (true? (:valid? (check (pc/concurrency) (apply hist h)))))
      (is (= 3 (:bound (check (pc/concurrency) (apply hist h)))))
      (testing "but not a fourth job"
        (is (false? (:valid? (check (pc/concurrency) (apply hist (concat h (run-op 103 1 2 9 12)))))))))
  (testing "a job that never ended is invalid"
    (is (false? (:valid? (check (pc/concurrency) (apply hist (concat (run-op 100 0 1 0 nil))))))))))

(deftest jobs-pass-and-violation
  (let [base (concat (submit-op 0 0 [1 2] 0 1)
                     (run-op 100 0 1 2 10)
                     [[0 :invoke :cancel {:pool 0} 3]
                      [0 :ok :cancel {:pool 0 :job-id 2 :state-before :queued :was-live? true} 4]])]
    (testing "every accepted job ends once; a job cancelled while queued never runs"
      (let [r (check (pc/jobs) (apply hist (concat base (drain-op 0 0 {1 [:succeeded 1 false] 2 [:cancelled 0 false]} 20 21))))]
        (is (true? (:valid? r)) (pr-str r))
        (is (= {:cancelled 1 :succeeded 1} (:terminal-states r)))))
    (testing "a cancelled queued job that runs later"
      (is (seq (:ran-after-cancel (check (pc/jobs) (apply hist (concat base (run-op 101 0 2 5 6)
                                                                        (drain-op 0 0 {1 [:succeeded 1 false] 2 [:cancelled 1 false]} 20 21))))))))
    (testing "an accepted job without a terminal state"
      (is (false? (:valid? (check (pc/jobs) (apply hist (concat base (drain-op 0 0 {1 [:succeeded 1 false]} 20 21 :unterminated [2]))))))))
    (testing "a pool that never drained"
      (is (false? (:valid? (check (pc/jobs) (apply hist base))))))
    (testing "a run of a job never accepted, and runs that disagree with the attempts"
      (let [r (check (pc/jobs) (apply hist (concat base (run-op 102 0 9 5 6)
                                                    (drain-op 0 0 {1 [:succeeded 2 false] 2 [:cancelled 0 false]} 20 21))))]
        (is (false? (:valid? r)))
        (is (= [[0 9]] (:runs-never-accepted r)))
        (is (= [{:job [0 1] :runs 1 :attempts 2}] (:attempts-mismatch r)))))))

;; ------------------------------------------------------------------ real pools

(defn- recorder
  "A test map whose client/record! appends to an atom, stamped on one monotonic clock."
  []
  (let [t0 (System/nanoTime)
        hist (atom [])
        side (java.util.concurrent.atomic.AtomicLong. 1000000)
        rec (fn [op] (locking hist (swap! hist conj (assoc op :time (- (System/nanoTime) t0)))))]
    {:hist hist :record! rec :next-side-process! #(.getAndIncrement side)}))

(defn- run-pools!
  "Pools 0..2 of W = 4 over the given slot sources; each gets 6 batches of 4 jobs of 40–60 ms
  through the workload client's :submit, then :drain. Returns the history."
  [sources]
  (let [test (recorder)
        opts (merge pool/defaults {:concurrency 6 :workers 4 :queue 32 :drain-s 20})
        clients (vec (for [[i ^SlotSource s] (map-indexed vector sources)]
                       (pool/map->PoolClient
                        {:opts opts :thread i
                         :state (atom {:handles (sorted-map)
                                       :pool (WorkerPool. (PoolOptions/of 4 32) s)})})))
        op! (fn [i op]
              (client/record! test (assoc op :process i :type :invoke))
              (let [c (client/invoke! (clients i) test (assoc op :process i))]
                (client/record! test (assoc c :process i))
                c))
        start (CountDownLatch. 1)
        threads (vec (for [i (range (count clients))]
                       (Thread. (fn []
                                  (.await start)
                                  (dotimes [_ 6]
                                    (op! i {:f :submit :value {:pool i :jobs [40 50 60 45]}})
                                    (Thread/sleep 60))
                                  (op! i {:f :drain :value {:pool i}})))))]
    (doseq [^Thread t threads] (.start t))
    (.countDown start)
    (doseq [^Thread t threads] (.join t 60000))
    (doseq [c clients] (client/close! c test))
    (h/index @(:hist test))))

(deftest real-pools-honest-and-rogue
  (let [checker (pc/pool-checker)
        opts {:concurrency 6}]
    (testing "three pools whose slots sum to C = 6 never run more than 6 jobs"
      (let [r (c/check checker {} (run-pools! [(SlotSource/fixed 2) (SlotSource/fixed 2) (SlotSource/fixed 2)]) opts)]
        (is (true? (get-in r [:concurrency :valid?])) (pr-str (:concurrency r)))
        (is (true? (get-in r [:jobs :valid?])) (pr-str (:jobs r)))
        (is (= 72 (get-in r [:jobs :accepted])))
        ;; The sweep saw the pools use the cap, so the rogue case below is not vacuous.
        (is (<= 5 (get-in r [:concurrency :peak :running]) 6))))
    (testing "the same pools, one ignoring its 2-slot lease (runs W = 4): the checker bites"
      (let [r (c/check checker {} (run-pools! [(pool/rogue-source (SlotSource/fixed 2) 4)
                                               (SlotSource/fixed 2) (SlotSource/fixed 2)]) opts)]
        (is (false? (:valid? r)))
        (is (false? (get-in r [:concurrency :valid?])))
        (is (pos? (get-in r [:concurrency :violation-count])))
        (is (< 6 (get-in r [:concurrency :peak :running])))
        ;; What the pools report is still consistent: only the cap was broken.
        (is (true? (get-in r [:jobs :valid?])) (pr-str (:jobs r)))))))
