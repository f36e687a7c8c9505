(ns ration.jepsen.pool-checker-test
  "The pool checkers on synthetic histories (one violation per rule), then real WorkerPools
  driven through the pool workload's own client and recording jobs: honest pools whose slots
  sum to C pass, and the same run with one pool that ignores its lease fails :concurrency.
  The pool-quota checkers likewise: per-level concurrency (a tenant over its cap while every
  project is within its own; overruns allowed beyond a cap, one each), billing (exact; more
  billed than started; less billed with no budget lost, with a loss that covers the
  difference, and with one too far away to), and real pools on scope paths, honest and rogue."
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
  through the workload client's :submit, then :drain. Returns the history. extra-opts (e.g. a
  :quota with :scopes) are merged into the workload's options."
  [sources & [extra-opts]]
  (let [test (recorder)
        opts (merge pool/defaults {:concurrency 6 :workers 4 :queue 32 :drain-s 20} extra-opts)
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

;; ------------------------------------------------------------------ pool-quota

(def qopts {:quota {:resource "jobs" :catalog [["o" 8] ["o/t" 2] ["o/t/a" 1]]
                    :scopes ["o/t/a" "o/t/b" "o/t/c"]}
            :lease-ms 1000 :op-timeout-ms 500})

(defn qcheck [checker history] (c/check checker {} history qopts))

(defn qrun-op
  "A job run of pool/job at scope on side process p from t0 to t1 (nil: never ended)."
  [p pool scope job t0 t1]
  (cond-> [[p :invoke :run {:pool pool :scope scope :job-id job :attempt 1} t0]]
    t1 (conj [p :ok :run {:pool pool :scope scope :job-id job :attempt 1 :cancelled? false} t1])))

(deftest level-concurrency-pass-and-violation
  (let [base (concat (qrun-op 100 0 "o/t/a" 1 0 10) (qrun-op 101 1 "o/t/b" 1 5 20)
                     (qrun-op 102 0 "o/t/a" 2 10 30))]
    (testing "two at the tenant (cap 2), one at project a (cap 1): valid, peaks per level"
      (let [r (qcheck (pc/level-concurrency) (apply hist base))]
        (is (true? (:valid? r)) (pr-str r))
        (is (= {"o" [2 8] "o/t" [2 2] "o/t/a" [1 1]} (:peak-per-level r)))))
    (testing "a third pool on o/t/c: the tenant is over its cap while every project is within its own"
      (let [r (qcheck (pc/level-concurrency) (apply hist (concat base (qrun-op 103 2 "o/t/c" 1 8 12))))]
        (is (false? (:valid? r)))
        (is (false? (get-in r [:levels "o/t" :valid?])))
        (is (= {:pool 2 :job-id 1} (get-in r [:levels "o/t" :violations 0 :job])))
        (is (true? (get-in r [:levels "o/t/a" :valid?])))
        (is (true? (get-in r [:levels "o" :valid?])))))
    (testing "two pools of project a at once: project a over its cap 1"
      (let [r (qcheck (pc/level-concurrency) (apply hist (concat (qrun-op 100 0 "o/t/a" 1 0 10)
                                                                 (qrun-op 101 3 "o/t/a" 1 2 4))))]
        (is (false? (get-in r [:levels "o/t/a" :valid?])))
        (is (true? (get-in r [:levels "o/t" :valid?])))))
    (testing "an overrun its pool reported is allowed beyond the cap, but only that one"
      (let [h (concat base (qrun-op 103 2 "o/t/c" 1 8 12)
                      (drain-op 2 2 {1 [:succeeded 1 true]} 40 41))]
        (is (true? (:valid? (qcheck (pc/level-concurrency) (apply hist h)))))
        (is (= 3 (get-in (qcheck (pc/level-concurrency) (apply hist h)) [:levels "o/t" :bound])))
        (is (false? (:valid? (qcheck (pc/level-concurrency) (apply hist (concat h (qrun-op 104 1 "o/t/b" 2 9 11)))))))))
    (testing "a run that never ended, and a run without a scope, are invalid"
      (is (false? (:valid? (qcheck (pc/level-concurrency) (apply hist (qrun-op 100 0 "o/t/a" 1 0 nil))))))
      (is (false? (:valid? (qcheck (pc/level-concurrency) (apply hist (run-op 100 0 1 0 10)))))))))

(defn usage-op [levels t]
  [[0 :invoke :usage {} t] [0 :ok :usage {:levels levels} (inc t)]])

(defn lost-op
  ([p pool scope t] (lost-op p pool scope t nil))
  ([p pool scope t end-ago-ms]
   (let [v (cond-> {:pool pool :scope scope :leases-lost 1} end-ago-ms (assoc :end-ago-ms end-ago-ms))]
     [[p :invoke :slots-lost v t] [p :ok :slots-lost v t]])))

(deftest billing-exact-over-and-under
  ;; Pool 0 on o/t/a started 3 attempts (0, 10, 3000 ms), pool 1 on o/t/b one (5 ms).
  (let [runs (concat (qrun-op 100 0 "o/t/a" 1 0 10) (qrun-op 101 1 "o/t/b" 1 5 20)
                     (qrun-op 102 0 "o/t/a" 2 10 30) (qrun-op 103 0 "o/t/a" 3 3000 3010))
        drains (concat (drain-op 0 0 {1 [:succeeded 1 false] 2 [:succeeded 1 false] 3 [:succeeded 1 false]} 4000 4001)
                       (drain-op 1 1 {1 [:succeeded 1 false]} 4000 4001))
        billed (fn [a b] {"o" (+ a b) "o/t" (+ a b) "o/t/a" a "o/t/b" b "o/t/c" 0})]
    (testing "every attempt billed: valid"
      (let [r (qcheck (pc/billing) (apply hist (concat runs drains (usage-op (billed 3 1) 5000))))]
        (is (true? (:valid? r)) (pr-str r))
        (is (= [3 3] (get-in r [:attempts-vs-billed "o/t/a"])))
        (is (= [4 4] (get-in r [:attempts-vs-billed "o"])))))
    (testing "more billed than started: invalid"
      (let [r (qcheck (pc/billing) (apply hist (concat runs drains (usage-op (billed 4 1) 5000))))]
        (is (false? (:valid? r)))
        (is (= :billed-more-than-started (get-in r [:levels "o/t/a" :error])))))
    (testing "one attempt unbilled and no budget lost: invalid"
      (let [r (qcheck (pc/billing) (apply hist (concat runs drains (usage-op (billed 2 1) 5000))))]
        (is (false? (:valid? r)))
        (is (= :unbilled-without-a-lost-budget (get-in r [:levels "o/t/a" :error])))
        (is (true? (get-in r [:levels "o/t/b" :valid?])))))
    (testing "pool 0's budget lost at 3500 ms (window 2000–4000 ms: its 3000 ms start): valid, reported"
      (let [r (qcheck (pc/billing) (apply hist (concat runs (lost-op 200 0 "o/t/a" 3500) drains
                                                       (usage-op (billed 2 1) 5000))))]
        (is (true? (:valid? r)) (pr-str r))
        (is (= 1 (get-in r [:levels "o/t/a" :unbilled])))
        (is (= 1 (get-in r [:levels "o/t/a" :allowance])))
        (is (= 1 (get-in r [:levels "o" :leases-lost])))))
    (testing "... but not two unbilled: the 0 and 10 ms starts lie outside the window"
      (let [r (qcheck (pc/billing) (apply hist (concat runs (lost-op 200 0 "o/t/a" 3500) drains
                                                       (usage-op (billed 1 1) 5000))))]
        (is (false? (:valid? r)))
        (is (= :unbilled-beyond-the-lost-budgets (get-in r [:levels "o/t/a" :error])))))
    (testing "a loss recorded late (at 7000 ms) whose lease ended locally at 3500 ms covers the 3000 ms start"
      (let [r (qcheck (pc/billing) (apply hist (concat runs (lost-op 200 0 "o/t/a" 7000 3500) drains
                                                       (usage-op (billed 2 1) 8000))))]
        (is (true? (:valid? r)) (pr-str r))
        (is (= 1 (get-in r [:levels "o/t/a" :allowance])))))
    (testing "... which the loss's own time alone would not (window 5600-7600 ms)"
      (let [r (qcheck (pc/billing) (apply hist (concat runs (lost-op 200 0 "o/t/a" 7100) drains
                                                       (usage-op (billed 2 1) 8000))))]
        (is (false? (:valid? r)))))
    (testing "a loss of another pool does not cover pool 0's starts"
      (is (false? (:valid? (qcheck (pc/billing) (apply hist (concat runs (lost-op 200 1 "o/t/b" 3500) drains
                                                                     (usage-op (billed 2 1) 5000))))))))
    (testing "an aggregate that disagrees with the replayed log: invalid"
      (let [h (concat runs drains [[0 :invoke :usage {} 5000]
                                   [0 :ok :usage {:levels (billed 3 1) :complete? true
                                                  :replayed (assoc (billed 3 1) "o" 3)} 5001]])
            r (qcheck (pc/billing) (apply hist h))]
        (is (false? (:valid? r)))
        (is (true? (get-in r [:levels "o" :aggregate-disagrees-with-replay])))
        (is (true? (get-in r [:levels "o/t/a" :valid?])))))
    (testing "no usage read: unknown"
      (is (= :unknown (:valid? (qcheck (pc/billing) (apply hist (concat runs drains)))))))))

(deftest real-pools-on-scope-paths-honest-and-rogue
  (let [checker (pc/pool-quota-checker)
        extra {:quota {:resource "jobs" :catalog [["o" 8] ["o/t" 4] ["o/t/a" 2]]
                       :scopes ["o/t/a" "o/t/b" "o/t/c"]}}
        opts (merge pool/defaults extra)]
    (testing "pools on o/t/a, o/t/b, o/t/c with 2 + 1 + 1 slots: the tenant (4) and o/t/a (2) hold"
      (let [r (c/check checker {} (run-pools! [(SlotSource/fixed 2) (SlotSource/fixed 1) (SlotSource/fixed 1)] extra) opts)]
        (is (true? (get-in r [:level-concurrency :valid?])) (pr-str (:level-concurrency r)))
        (is (true? (get-in r [:jobs :valid?])) (pr-str (:jobs r)))
        (is (<= 3 (get-in r [:level-concurrency :levels "o/t" :peak :running]) 4))
        ;; No usage read in this test: billing unknown, so the whole result is not true.
        (is (= :unknown (get-in r [:billing :valid?])))))
    (testing "the pool on o/t/a ignoring its 2 slots (runs W = 4): o/t/a and the tenant over their caps"
      (let [r (c/check checker {} (run-pools! [(pool/rogue-source (SlotSource/fixed 2) 4)
                                               (SlotSource/fixed 1) (SlotSource/fixed 1)] extra) opts)]
        (is (false? (:valid? r)))
        (is (false? (get-in r [:level-concurrency :levels "o/t/a" :valid?])))
        (is (< 2 (get-in r [:level-concurrency :levels "o/t/a" :peak :running])))
        (is (false? (get-in r [:level-concurrency :levels "o/t" :valid?])))
        (is (true? (get-in r [:jobs :valid?])) (pr-str (:jobs r)))))))
