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
  still acquired and renewed beside it. The pool checker must fail such a run.

  Quota slots (quota-opts, workload pool-quota; docs/QUOTAS.md \"Concurrent quotas: slot
  budgets\"): with opts :quota {:resource :catalog [[scope cap] ...] :scopes [...]} the catalog
  is set as CONCURRENT quotas and pool t's slot source is
  RationClient.quotaSlots(\"pool-<t>\", scope, resource, W, lease) on scope t mod the number of
  scopes: one slot budget counted at every level of the path (org, tenant, project) and billed
  (each attempt the pool starts, BUDGET_SPENT usage events). :submit and :run then carry
  :scope, and the final phase ends with one
    :usage {}                        ok + {:levels {scope billed} :replayed {scope billed}
                                     :events n :complete? b}: the usage log's aggregate of the
                                     resource at every catalog level and pool scope, read once
                                     every pool's drain completed (its budget returned), then
                                     the same sums from a replay of the whole log

  Every pool records each lease its slot source loses (refused on renewal, or lapsed without
  an answer: LeasedSlots.leasesLost() grew) as a :slots-lost op of a side process, {:pool
  :scope :leases-lost n}, at the moment it is lost: the billing checker needs when a budget
  whose return may not have got through was lost. :drain also records the lease's counters
  (:lease {:leases-lost :renewals-failed :renewals-answered})."
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
           (dev.ration.client.quota QuotaClient QuotaDefinition)
           (dev.ration.client.slots LeasedSlots)
           (dev.ration.client.time LedgerTime)
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
   ;; nil: slots of the limit above; a map: slot budgets on CONCURRENT quotas (quota-opts).
   :quota nil
   :op-timeout-ms 3000
   :request-deadline-ms 2000})

(def quota-opts
  "pool-quota: CONCURRENT quotas on `jobs` at org o (8), tenant o/t (4: the tightest, shared by
  every pool) and projects o/t/a (3) and o/t/b (2); o/t/c has no entry of its own. Pool t runs
  on project t mod 3 (6 threads on 3 nodes: two pools per project), each W = 4, so the pools
  want 24 slots of the tenant's 4 and contend all the time; the lease is :lease-ms (3 s)."
  {:quota {:resource "jobs"
           :catalog [["o" 8] ["o/t" 4] ["o/t/a" 3] ["o/t/b" 2]]
           :scopes ["o/t/a" "o/t/b" "o/t/c"]}})

(defn scope-of
  "Pool t's scope path (quota mode), nil otherwise."
  [opts thread]
  (when-let [scopes (seq (get-in opts [:quota :scopes]))]
    (nth scopes (mod thread (count scopes)))))

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
    (reportUsage [_ running queued] (.reportUsage lease running queued))
    ;; Starts and ends are still told to the lease (starts are billed, for quota slots).
    (attemptStarted [_] (.attemptStarted lease))
    (attemptEnded [_] (.attemptEnded lease))))

(defn recording-job
  "A Job that records its run (:run invocation at start, completion at end) and works for ms
  milliseconds in 1 ms steps, returning early when its token is cancelled. tags (e.g. {:scope
  s}) go into the recorded value."
  (^Job [test pool-id ms] (recording-job test pool-id ms nil))
  (^Job [test pool-id ms tags]
  (reify Job
    (run [_ attempt]
      (let [^Attempt a attempt
            ^CancellationToken token (.token a)
            p (client/side-process! test)
            v (merge {:pool pool-id :job-id (.jobId a) :attempt (.number a) :ms ms} tags)
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
        ms)))))

(defn- record-losses!
  "Records every lease the source loses (its leasesLost() grew) as a :slots-lost op, when it
  happens (the listener runs on every change of the permits, the loss included), with
  :end-ago-ms: how long before that moment the lost lease's local end (validUntil, the last one
  the listener saw) was. The pool starts nothing after that end; the loss itself may be
  recorded later (a renewal in flight at the end fails only at its deadline), and the billing
  checker anchors its window at the end."
  [test ^LeasedSlots lease pool-id scope]
  (let [seen (atom 0)
        last-end (atom nil)]
    (.addListener lease
                  (fn []
                    (let [u (.validUntil lease)]
                      (when (.isAfter u java.time.Instant/EPOCH) (reset! last-end u)))
                    (let [n (.leasesLost lease)
                          old @seen]
                      (when (and (> n old) (compare-and-set! seen old n))
                        (let [p (client/side-process! test)
                              end @last-end
                              v (cond-> {:pool pool-id :leases-lost n}
                                  scope (assoc :scope scope)
                                  end (assoc :end-ago-ms (- (System/currentTimeMillis) (.toEpochMilli ^java.time.Instant end))))]
                          (client/record! test {:process p :type :invoke :f :slots-lost :value v})
                          (client/record! test {:process p :type :ok :f :slots-lost :value v}))))))))

(defn- start-probe!
  "Diagnostics (environment RTN_POOL_PROBE_MS=n, off by default): every n ms a :slots-probe op
  with the pool's slot source (permits, share, ms until validUntil, leases lost, renewals
  failed/answered) and its running/queued; pool 0 also lists the ledger's budgets and held
  amounts under the first catalog level (a second connection's reads, which may fail)."
  [test ^RationClient conn opts thread ^LeasedSlots lease ^WorkerPool pool]
  (when-let [ms (some-> (System/getenv "RTN_POOL_PROBE_MS") parse-long)]
    (let [t (Thread.
             (fn []
               (try
                 (loop [i 0]
                   (when-not (.isTerminated pool)
                     (let [p (client/side-process! test)
                           st (.stats pool)
                           v (cond-> {:pool thread :permits (.permits lease) :share (.share lease)
                                      :valid-ms (let [u (.validUntil lease)]
                                                  (if (= u Instant/MAX) Long/MAX_VALUE
                                                      (- (.toEpochMilli u) (System/currentTimeMillis))))
                                      :lost (.leasesLost lease) :failed (.renewalsFailed lease)
                                      :answered (.renewalsAnswered lease)
                                      :running (.running st) :queued (.queued st)}
                               (and (zero? thread) (:quota opts) (even? i))
                               (assoc :ledger
                                      (try (let [q (.quotas conn)
                                                 top (ffirst (get-in opts [:quota :catalog]))]
                                             {:budgets (vec (for [^dev.ration.client.quota.BudgetInfo b (.listBudgets q top)]
                                                              [(.budgetId b) (.holder b) (.granted b) (.spent b)
                                                               (.lapsed b) (.millis (.expiresAt b))]))
                                              :held (into (sorted-map)
                                                          (for [^dev.ration.client.quota.QuotaStatus s (.listQuotas q top)]
                                                            [(.scope (.spec s)) (.held s)]))})
                                           (catch Exception e (str e)))))]
                       (client/record! test {:process p :type :invoke :f :slots-probe :value {:pool thread}})
                       (client/record! test {:process p :type :ok :f :slots-probe :value v}))
                     (Thread/sleep (long ms))
                     (recur (inc i))))
                 (catch InterruptedException _)
                 (catch Exception _))))]
      (.setDaemon t true)
      (.start t))))

(defn- pool-state
  "The thread's pool, made on first use (not in open!, which also serves setup!)."
  [{:keys [opts conn state thread]} test]
  (or (:pool @state)
      (let [w (:workers opts)
            scope (scope-of opts thread)
            ^LeasedSlots lease (if scope
                                 (.quotaSlots ^RationClient conn (str "pool-" thread) ^String scope
                                              ^String (get-in opts [:quota :resource]) (int w)
                                              (Duration/ofMillis (long (:lease-ms opts))))
                                 (.leasedSlots ^RationClient conn (:tenant opts) (:resource opts)
                                               (str "pool-" thread) (int w)))
            _ (record-losses! test lease thread scope)
            source (if (contains? (:rogue-pools opts) thread) (rogue-source lease w) lease)
            pool (WorkerPool. (-> (PoolOptions/of (int w) (int (:queue opts)))
                                  ;; One attempt: a job's runs and its result stay one-to-one.
                                  (.withRetries 1 (Duration/ofMillis 50) (Duration/ofMillis 500)))
                              source)]
        (swap! state assoc :pool pool :lease lease)
        (start-probe! test conn opts thread lease pool)
        pool)))

(defn- stats-map [^PoolStats s]
  {:accepted (.accepted s) :rejected (.rejected s) :overloaded (.overloaded s)
   :succeeded (.succeeded s) :failed (.failed s) :cancelled (.cancelled s)
   :overruns (.overruns s) :running (.running s) :queued (.queued s)})

(defn- submit! [this test op]
  (let [{:keys [opts state thread]} this
        ^WorkerPool pool (pool-state this test)
        deadline (.plusMillis (Instant/now) (long (:job-deadline-ms opts)))
        tags (when-let [s (scope-of opts thread)] {:scope s})
        rs (for [ms (:jobs (:value op))]
             (let [r (.submit pool (recording-job test thread ms tags) deadline)]
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

(defn- drain! [this test op]
  (let [{:keys [opts state]} this
        ^WorkerPool pool (pool-state this test)
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
        stats (stats-map (.stats pool))
        ;; Diagnostics (RTN_POOL_PROBE_MS set, quota slots): the ledger's budgets of this pool
        ;; just before and after its lease is closed (returned).
        probe? (and (System/getenv "RTN_POOL_PROBE_MS") (:quota opts))
        mine (fn [] (try (vec (for [^dev.ration.client.quota.BudgetInfo b (.listBudgets (.quotas ^RationClient (:conn this))
                                                                                         ^String (scope-of opts (:thread this)))
                                    :when (= (.holder b) (str "pool-" (:thread this)))]
                                [(.budgetId b) (.granted b) (.spent b) (.reportSequence b) (.lapsed b)]))
                         (catch Exception e (str e))))
        before (when probe? (mine))
        t-close (System/nanoTime)]
    (when-let [^LeasedSlots l (:lease @state)] (.close l))
    (assoc op :type :ok
           :value (assoc (:value op)
                         :probe (when probe? {:budgets-before before :budgets-after (mine)
                                              :close-ms (/ (- (System/nanoTime) t-close) 1e6)})
                         :lease (when-let [^LeasedSlots l (:lease @state)]
                                  {:leases-lost (.leasesLost l) :renewals-failed (.renewalsFailed l)
                                   :renewals-answered (.renewalsAnswered l)})
                         :results results
                         :unterminated unterminated
                         :overrun-ids (vec (.overrunJobIds pool))
                         :report {:finished (count (.finished rep)) :cancelled (count (.cancelled rep))
                                  :abandoned (count (.abandoned rep))}
                         :stats stats))))

(defn- replayed
  "The usage log replayed whole (at most 200 pages of 1,000), after the aggregates: {:replayed
  {level Σ quantity of the resource's events at or under it} :events n :complete? bool}, a
  cross-check of the aggregates; on failure {:replay-error \"...\"}."
  [^QuotaClient q resource levels]
  (try
    (loop [from 1, acc (into (sorted-map) (for [l levels] [l 0])), n 0, pages 0]
      (let [^dev.ration.client.quota.UsageBatch b (.replayUsage q (long from) (int 1000))
            rs (filter #(= resource (.resource ^dev.ration.client.quota.UsageRecord %)) (.records b))
            acc (reduce (fn [a ^dev.ration.client.quota.UsageRecord r]
                          (reduce #(update %1 %2 + (.quantity r)) a
                                  (filter (fn [l] (or (= l (.scope r)) (.startsWith ^String (.scope r) (str l "/"))))
                                          levels)))
                        acc rs)
            n (+ n (count rs))
            all (.records b)
            last-seq (if (seq all) (.sequence ^dev.ration.client.quota.UsageRecord (last all)) (dec from))]
        (cond
          (or (empty? all) (>= last-seq (.lastSequence b))) {:replayed acc :events n :complete? true}
          (>= pages 199) {:replayed acc :events n :complete? false}
          :else (recur (inc last-seq) acc n (inc pages)))))
    (catch Exception e {:replay-error (str e)})))

(defn- usage!
  "The usage log's aggregate of the quota resource, over all ledger time, at every catalog
  level and pool scope (a scope's aggregate counts its descendants too)."
  [this op]
  (let [{:keys [opts ^RationClient conn]} this
        {:keys [resource catalog scopes]} (:quota opts)
        ^QuotaClient q (.quotas conn)
        read (fn [] (into (sorted-map)
                          (for [scope (distinct (concat (map first catalog) scopes))]
                            [scope (.total (.aggregateUsage q ^String scope ^String resource
                                                            (LedgerTime/ofMillis 0)
                                                            (LedgerTime/ofMillis (dec Long/MAX_VALUE))))])))
        ;; Up to three tries (a cold leader's first answer may be NOT_LEADER past the deadline).
        levels (loop [i 1]
                 (let [r (try (read) (catch Exception e (if (< i 3) e (throw e))))]
                   (if (instance? Exception r) (do (Thread/sleep 1000) (recur (inc i))) r)))]
    (assoc op :type :ok :value (merge {:levels levels} (replayed q resource (keys levels))))))

(defn- set-quota-catalog!
  "Sets each [scope cap] of the catalog as a CONCURRENT quota, retried while the cluster elects."
  [^RationClient conn opts]
  (let [{:keys [resource catalog]} (:quota opts)]
    (doseq [[scope cap] catalog]
      (let [deadline (+ (System/nanoTime) (* 60 1000000000))]
        (loop []
          (let [r (try (.setQuota (.quotas conn)
                                  (-> (QuotaDefinition/concurrent scope resource (long cap))
                                      (.unit "jobs") (.actor "jepsen") (.reason "setup") (.build)))
                       (catch Exception e e))]
            (cond
              (and (not (instance? Exception r)) (= Outcome/SUCCESS (.outcome r))) r
              (> (System/nanoTime) deadline) (throw (ex-info "could not set the catalog" {:scope scope :last (str r)}))
              :else (do (Thread/sleep 500) (recur)))))))))

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
    (if (:quota opts)
      (set-quota-catalog! conn opts)
    (let [deadline (+ (System/nanoTime) (* 60 1000000000))]
      (loop []
        (let [r (try (client/await! (.call (RawClient/of conn) (Request$SetLimitConcurrency. (limit-of opts 0) (long (:concurrency opts))))
                                    (:op-timeout-ms opts))
                     (catch Exception e e))]
          (cond
            (and (instance? Response$SlotLimitReply r) (= Outcome/SUCCESS (.outcome ^Response$SlotLimitReply r))) r
            (> (System/nanoTime) deadline) (throw (ex-info "could not set the concurrency cap" {:last (str r)}))
            :else (do (Thread/sleep 500) (recur))))))))

  (invoke! [this test op]
    (client/with-errors op
      (case (:f op)
        :submit (submit! this test op)
        :cancel (cancel! this op)
        :drain (drain! this test op)
        :usage (usage! this op))))

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
    (let [scope (scope-of opts (:thread this))
          base (cond-> {:pool (:thread this)} scope (assoc :scope scope))]
      (case (:f op)
        :submit (assoc op :value (assoc base
                                        :jobs (vec (repeatedly (inc (gen/rand-int* (:max-batch opts)))
                                                               #(+ (:min-job-ms opts)
                                                                   (gen/rand-int* (inc (- (:max-job-ms opts) (:min-job-ms opts)))))))))
        :usage (assoc op :value {})
        (assoc op :value base)))))

(defn client [opts] (map->PoolClient {:opts opts}))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name (str "pool" (when (:quota opts) "-quota") (when (seq (:rogue-pools opts)) "-rogue"))
     :opts opts
     :client (client opts)
     :generator (gen/mix (concat (repeat 8 (gen/repeat {:f :submit})) [(gen/repeat {:f :cancel})]))
     ;; One more batch per pool after the heal and the quiet period, so a run must show jobs
     ;; running again (the :stats progress check), then every pool drains.
     ;; Quota slots: then, once every pool's drain completed (its budget returned), one thread
     ;; reads what the usage log billed. Without the synchronize the read started as soon as
     ;; the first drain ended, while the others still returned their budgets (seen: 388 billed
     ;; at the read, 401 = the attempts 2 s later).
     :final-generator (cond-> [(gen/each-thread-once {:f :submit})
                               (gen/each-thread-once {:f :drain})]
                        (:quota opts) (conj (gen/synchronize (gen/once {:f :usage}))))}))
