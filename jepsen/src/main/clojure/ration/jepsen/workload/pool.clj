(ns ration.jepsen.workload.pool
  "The pool workload (docs/POOL.md, \"The global cap\"): every client thread owns one real
  dev.ration.client.pool.WorkerPool of W workers whose concurrency comes from a real slot lease
  (RationClient.leasedSlots) on one limit (acme, db) with a concurrency cap C. All the pools
  together may run at most C jobs at once (plus the overruns the pools report).

  Each job records itself: an invocation :run when it starts on a worker and a completion when
  it returns, both through client/record! (a side process per attempt), so the history holds
  the real interval of every job on the harness's monotonic clock. A job honours cancellation:
  it works for its drawn duration in 1 ms steps and returns early once its token is cancelled
  (completion value :cancelled? true). The interval recorded lies inside the interval the pool
  counts the job as running (the pool starts the job before its first record and frees the slot
  after its last), so a sweep over recorded intervals never over-states concurrency.

  Ops:
    :submit {:pool :jobs [ms ...]}   ok + {:job-ids [...] :overloaded n :rejected n}
                                     (fail when no job of the batch was accepted)
    :cancel {:pool}                  cancels the oldest live job of the pool; ok + {:job-id
                                     :state-before}; fail [:none-live] when none is live
    :run    {:pool :job-id :attempt} recorded by the job itself (ok + :cancelled?)
    :drain  {:pool}                  final phase (after one more :submit per pool): shutdown(drain-s, DRAIN), then every accepted
                                     job's terminal result: ok + {:results {job-id [state
                                     attempts overrun?]} :unterminated [ids] :report {...}
                                     :stats {...}}

  Misbehaving pools (opts :rogue-pools, a set of thread numbers) ignore their lease: their pool
  runs over a SlotSource that always permits W and never expires, while the real lease is
  still acquired and renewed beside it. The pool checker must fail such a run."
  (:require [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen])
  (:import (dev.ration.client RationClient)
           (dev.ration.client.transport RawClient)
           (dev.ration.protocol Request$SetLimitConcurrency Response$SlotLimitReply)
           (dev.ration.client.pool Attempt CancellationToken Job JobHandle JobResult PoolOptions
                                   PoolStats ShutdownPolicy ShutdownReport SlotSource
                                   SubmitResult$Accepted SubmitResult$Overloaded SubmitResult$Rejected
                                   WorkerPool)
           (dev.ration.client.slots LeasedSlots)
           (dev.ration.wire Mode Outcome Policy)
           (dev.ration.wire.lease Limit)
           (java.time Duration Instant)
           (java.util.concurrent TimeUnit)))

(def defaults
  {:tenant "acme"
   :resource "db"
   :concurrency 6            ; C, shared by every pool
   :workers 4                ; W per pool: 2n pools × 4 > C, so they contend
   :queue 16
   :lease-ms 3000
   :grace-ms 1000
   :min-job-ms 20
   :max-job-ms 300
   :max-batch 4
   :job-deadline-ms 15000
   :drain-s 20
   :rogue-pools #{}
   :op-timeout-ms 3000
   :request-deadline-ms 2000})

(defn limit-of
  "The cap's limit record: no rate or burst, only slots (SET_LIMIT_CONCURRENCY carries C)."
  ^Limit [opts version]
  (Limit. (:tenant opts) (:resource opts) 0 0 Mode/HARD (long (:lease-ms opts)) (long (:grace-ms opts))
          0 Policy/FAIR_SHARE (long version)))

(defn rogue-source
  "A SlotSource that ignores the lease beside it: always W permits, never expiring. Demand is
  still reported to the lease, so the ledger sees an ordinary holder."
  ^SlotSource [^SlotSource lease w]
  (reify SlotSource
    (permits [_] (int w))
    (validUntil [_] Instant/MAX)
    (addListener [_ _])
    (reportUsage [_ running queued] (.reportUsage lease running queued))))

(defn recording-job
  "A Job that records its run (:run invocation at start, completion at end) and works for ms
  milliseconds in 1 ms steps, returning early when its token is cancelled."
  ^Job [test pool-id ms]
  (reify Job
    (run [_ attempt]
      (let [^Attempt a attempt
            ^CancellationToken token (.token a)
            p (client/side-process! test)
            v {:pool pool-id :job-id (.jobId a) :attempt (.number a) :ms ms}
            _ (client/record! test {:process p :type :invoke :f :run :value v})
            until (+ (System/nanoTime) (* 1000000 (long ms)))]
        (try
          (loop []
            (when (and (not (.isCancelled token)) (< (System/nanoTime) until))
              (Thread/sleep 1)
              (recur)))
          (finally
            (client/record! test {:process p :type :ok :f :run
                                  :value (assoc v :cancelled? (.isCancelled token))})))
        ms))))

(defn- pool-state
  "The thread's pool, made on first use (not in open!, which also serves setup!)."
  [{:keys [opts conn state thread]}]
  (or (:pool @state)
      (let [w (:workers opts)
            ^LeasedSlots lease (.leasedSlots ^RationClient conn (:tenant opts) (:resource opts)
                                             (str "pool-" thread) (int w))
            source (if (contains? (:rogue-pools opts) thread) (rogue-source lease w) lease)
            pool (WorkerPool. (-> (PoolOptions/of (int w) (int (:queue opts)))
                                  ;; One attempt: a job's runs and its result stay one-to-one.
                                  (.withRetries 1 (Duration/ofMillis 50) (Duration/ofMillis 500)))
                              source)]
        (swap! state assoc :pool pool :lease lease)
        pool)))

(defn- stats-map [^PoolStats s]
  {:accepted (.accepted s) :rejected (.rejected s) :overloaded (.overloaded s)
   :succeeded (.succeeded s) :failed (.failed s) :cancelled (.cancelled s)
   :overruns (.overruns s) :running (.running s) :queued (.queued s)})

(defn- submit! [this test op]
  (let [{:keys [opts state thread]} this
        ^WorkerPool pool (pool-state this)
        deadline (.plusMillis (Instant/now) (long (:job-deadline-ms opts)))
        rs (for [ms (:jobs (:value op))]
             (let [r (.submit pool (recording-job test thread ms) deadline)]
               (cond
                 (instance? SubmitResult$Accepted r)
                 (let [^JobHandle h (.handle ^SubmitResult$Accepted r)]
                   (swap! state update :handles assoc (.id h) h)
                   [:accepted (.id h)])
                 (instance? SubmitResult$Overloaded r) [:overloaded nil]
                 :else [:rejected (str (.reason ^SubmitResult$Rejected r))])))
        rs (doall rs)
        ids (vec (keep (fn [[k id]] (when (= :accepted k) id)) rs))
        v (assoc (:value op) :job-ids ids
                 :overloaded (count (filter #(= :overloaded (first %)) rs))
                 :rejected (count (filter #(= :rejected (first %)) rs)))]
    (if (seq ids)
      (assoc op :type :ok :value v)
      (assoc op :type :fail :value v :error [:not-accepted]))))

(defn- cancel! [this op]
  (let [{:keys [state]} this
        live (->> (:handles @state) (sort-by key)
                  (filter (fn [[_ ^JobHandle h]] (not (.isTerminal (.state h))))))]
    (if-let [[id ^JobHandle h] (first live)]
      (let [before (.state h)
            was-live (.cancel h)]
        (assoc op :type :ok :value (assoc (:value op) :job-id id :state-before (keyword (.toLowerCase (str before)))
                                          :was-live? was-live)))
      (assoc op :type :fail :error [:none-live]))))

(defn- result-entry [^JobResult r]
  [(keyword (.toLowerCase (str (.state r)))) (.attempts r) (.overrun r)])

(defn- drain! [this op]
  (let [{:keys [opts state]} this
        ^WorkerPool pool (pool-state this)
        ^ShutdownReport rep (.shutdown pool (.plusSeconds (Instant/now) (long (:drain-s opts))) ShutdownPolicy/DRAIN)
        handles (:handles @state)
        ;; Every accepted job's future must complete (the pool promises one terminal state);
        ;; wait a little beyond the shutdown for the last completions to be delivered.
        results (into (sorted-map)
                      (for [[id ^JobHandle h] handles
                            :let [r (try (.get (.result h) 5 TimeUnit/SECONDS) (catch Exception _ nil))]
                            :when r]
                        [id (result-entry r)]))
        unterminated (vec (remove #(contains? results %) (keys handles)))
        stats (stats-map (.stats pool))]
    (when-let [^LeasedSlots l (:lease @state)] (.close l))
    (assoc op :type :ok
           :value (assoc (:value op)
                         :results results
                         :unterminated unterminated
                         :overrun-ids (vec (.overrunJobIds pool))
                         :report {:finished (count (.finished rep)) :cancelled (count (.cancelled rep))
                                  :abandoned (count (.abandoned rep))}
                         :stats stats))))

(defrecord PoolClient [opts state ^RationClient conn]
  client/Client
  (open! [this test _node]
    (let [t (:thread this)
          addrs (db/client-addresses (:db test) test)]
      (assoc this
             :conn (client/open-ration-client addrs t opts (:seed test 0) (+ 3000 t))
             :state (atom {:handles (sorted-map)}))))

  (setup! [_ test]
    ;; Set C once (version 0 creates the limit); retried while the cluster elects.
    (let [deadline (+ (System/nanoTime) (* 60 1000000000))]
      (loop []
        (let [r (try (client/await! (.call (RawClient/of conn) (Request$SetLimitConcurrency. (limit-of opts 0) (long (:concurrency opts))))
                                    (:op-timeout-ms opts))
                     (catch Exception e e))]
          (cond
            (and (instance? Response$SlotLimitReply r) (= Outcome/SUCCESS (.outcome ^Response$SlotLimitReply r))) r
            (> (System/nanoTime) deadline) (throw (ex-info "could not set the concurrency cap" {:last (str r)}))
            :else (do (Thread/sleep 500) (recur)))))))

  (invoke! [this test op]
    (client/with-errors op
      (case (:f op)
        :submit (submit! this test op)
        :cancel (cancel! this op)
        :drain (drain! this op))))

  (teardown! [_ _])
  (close! [_ _]
    (when-let [^WorkerPool p (:pool @state)]
      (when-not (.isTerminated p)
        (.shutdown p (.plusSeconds (Instant/now) 5) ShutdownPolicy/CANCEL_QUEUED)))
    (when-let [^LeasedSlots l (:lease @state)] (.close l))
    (when conn (.close conn)))

  client/Reusable
  (reusable? [_ _] true)

  client/Prepare
  (prepare [this _ op]
    (case (:f op)
      :submit (assoc op :value {:pool (:thread this)
                                :jobs (vec (repeatedly (inc (gen/rand-int* (:max-batch opts)))
                                                       #(+ (:min-job-ms opts)
                                                           (gen/rand-int* (inc (- (:max-job-ms opts) (:min-job-ms opts)))))))})
      (assoc op :value {:pool (:thread this)}))))

(defn client [opts] (map->PoolClient {:opts opts}))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name (if (seq (:rogue-pools opts)) "pool-rogue" "pool")
     :opts opts
     :client (client opts)
     :generator (gen/mix (concat (repeat 8 (gen/repeat {:f :submit})) [(gen/repeat {:f :cancel})]))
     ;; One more batch per pool after the heal and the quiet period, so a run must show jobs
     ;; running again (the :stats progress check), then every pool drains.
     :final-generator [(gen/each-thread-once {:f :submit})
                       (gen/each-thread-once {:f :drain})]}))
