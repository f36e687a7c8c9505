(ns ration.jepsen.workload.budget
  "The quota-budget workload (docs/QUOTAS.md, \"Budgets and the quota limiter\"): every client
  thread is one service process holding one real dev.ration.client.quota.QuotaLimiter
  (RationClient.quotaLimiter), which takes, renews and returns budgets of a RATE quota on
  `calls`, by the day, limited at every level of the scope path (org acme, tenants t1 and t2,
  projects). Every check the thread makes is decided from its budgets alone; the limiter's
  grants, batched renewals and returns are the only requests the cluster sees. A fresh
  cluster's ledger time starts at 0, so a run lies inside one day's window.

  Ops:
    :spend {:scope :n}   ok + {:admitted n or 0 :reason}   (QuotaLimiter.decide)
    :close {}            ok: limiter.close() returned every budget with its final spend
                         (final phase, once per thread, after one more :spend)
    :usage {}            ok + {:levels {scope billed}}: the usage log's aggregate of `calls` at
                         every catalog level (final phase, after every :close)

  The limiter's driftFraction is the checker's :epsilon (0.1): a holder stops before the ledger
  stops counting its budget even with a leader clock 1/(1−ε) fast.

  Rogue holders (opts :rogue-holders, a set of thread numbers) admit every spend without
  asking their limiter (which still takes and renews budgets beside them): the :admissions
  checker must fail such a run.

  Soft quotas (soft-opts, workload quota-budget-soft): a catalog entry [scope limit E] with
  E > 0 is set with QuotaDefinition.Builder.overdraft(E) (Overage.OVERDRAFT, overageMax E).
  A budget whose every level is soft carries the smallest E of its path; a limiter cut off
  from the cluster (its budget's last renewal got no answer) may admit up to E more from it,
  reported on reconnect and billed as overage (docs/QUOTAS.md, \"Soft quotas\"). With
  :scope-per-holder? every thread checks one scope path only (thread t: scope t mod the number
  of paths), so a holder holds one budget at a time and the documented bound, limit + E per
  holder at every level, is what the checker holds the run to. Each :spend also records
  :overdrawn, what the limiter admitted from an overdraft in that decision (its
  overdrawnTotal() before and after; one thread per limiter), and the :usage read also sums the
  usage log's billable overage per level (:overage, from a replay of the whole log)."
  (:require [clojure.string :as str]
            [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen])
  (:import (dev.ration.client RationClient)
           (dev.ration.client.limiter LimiterScheduler)
           (dev.ration.client.quota QuotaClient QuotaDefinition QuotaLimiter QuotaLimiter$Decision
                                    QuotaLimiterOptions UsageBatch UsageRecord)
           (dev.ration.client.time LedgerTime)
           (dev.ration.wire Outcome Window)
           (java.time Duration)
           (java.util Optional)))

(def defaults
  {:org "acme"
   :resource "calls"
   ;; [scope limit]: RATE by the day at each level. At the CI's pace (40 ops/s, 1-4 units
   ;; each, a fifth on each scope; about 800 units admitted in a 25 s run with the clients cut
   ;; off part of the time) every level runs out in the second half of the run, so the nemesis
   ;; strikes while budgets are live and holders contend for what is left.
   :catalog [["acme" 600] ["acme/t1" 400] ["acme/t2" 300]
             ["acme/t1/p1" 150] ["acme/t1/p2" 150] ["acme/t2/p1" 120]]
   :scopes ["acme/t1/p1" "acme/t1/p2" "acme/t2/p1" "acme/t2/p2" "acme/t1"]
   :max-spend 4
   ;; false: every check draws its scope path; true: thread t always checks scope t mod 5.
   :scope-per-holder? false
   :rogue-holders #{}
   :lease-ms 3000
   :epsilon 0.1
   :op-timeout-ms 3000
   :request-deadline-ms 2000})

(def soft-opts
  "quota-budget-soft: every level soft with an overdraft E = 10 per holder, each holder on one
  scope path (6 threads on 3 nodes: acme/t1/p1 twice, acme/t1/p2, acme/t2/p1, acme/t2/p2,
  acme/t1; so the org has 6 holders, acme/t1 4, acme/t2 2, acme/t1/p1 2, the other projects 1).
  Demand is about 17 units/s per holder (40 checks/s of 1-4 units over 6 threads); the limits
  are about 5 s of it, so every level is full before the first fault (8 s in) and a holder cut
  off then has an exhausted budget: what it admits from there on is overdraft, past the limit."
  {:catalog [["acme" 440 10] ["acme/t1" 300 10] ["acme/t2" 160 10]
             ["acme/t1/p1" 160 10] ["acme/t1/p2" 80 10] ["acme/t2/p1" 80 10]]
   :scope-per-holder? true})

(defn overdraft-of
  "A catalog entry's overdraft E: its third element, 0 (hard) when absent."
  [[_ _ e]]
  (long (or e 0)))

(defn soft?
  "Whether any catalog entry is soft."
  [opts]
  (boolean (some (comp pos? overdraft-of) (:catalog opts))))

(defn levels-of
  "The levels of a scope: its prefixes, org first."
  [scope]
  (let [parts (str/split scope #"/")]
    (mapv #(str/join "/" (take % parts)) (range 1 (inc (count parts))))))

(defn- limiter-of
  "The thread's limiter, made on first use."
  ^QuotaLimiter [{:keys [opts conn state thread]}]
  (or (:limiter @state)
      (let [o (QuotaLimiterOptions. (Duration/ofMillis (long (:lease-ms opts))) (/ 1.0 3) 5 5
                                    (double (:epsilon opts)) (Duration/ofMillis 5)
                                    (Duration/ofSeconds 1) (Duration/ofSeconds 5) (Optional/empty))
            l (.quotaLimiter ^RationClient conn (str "holder-" thread) o)]
        (swap! state assoc :limiter l)
        l)))

(defn- spend! [this op]
  (let [{:keys [scope n]} (:value op)
        l (limiter-of this)
        ;; Only this thread decides through its limiter, so the difference is this decision's.
        before (.overdrawnTotal l)
        ^QuotaLimiter$Decision d (.decide l scope (:resource (:opts this)) (long n))
        overdrawn (- (.overdrawnTotal l) before)
        rogue? (contains? (:rogue-holders (:opts this)) (:thread this))]
    (assoc op :type :ok
           :value (cond-> (assoc (:value op)
                                 :admitted (if (or rogue? (.admitted d)) n 0)
                                 :reason (if rogue? :rogue (keyword (.toLowerCase (str (.reason d))))))
                    (pos? overdrawn) (assoc :overdrawn overdrawn)))))

(defn- close! [this op]
  (when-let [^QuotaLimiter l (:limiter @(:state this))]
    (client/await! (.closeAsync l) (* 2 (:op-timeout-ms (:opts this)))))
  (assoc op :type :ok))

(def ^:private replay-page 1000)
(def ^:private replay-max-pages 200)

(defn- overage-by-level
  "Replays the whole usage log: {:overage {level Σ billable overage of the events under it}
  :overage-events n :complete? bool} (complete unless the page bound was reached)."
  [^QuotaClient q catalog-levels resource]
  (loop [from 1, acc (into (sorted-map) (for [l catalog-levels] [l 0])), events 0, pages 0]
    (let [^UsageBatch b (.replayUsage q (long from) (int replay-page))
          rs (.records b)
          ours (filter (fn [^UsageRecord r] (and (pos? (.overage r)) (= resource (.resource r)))) rs)
          acc (reduce (fn [a ^UsageRecord r]
                        (reduce #(update %1 %2 + (.overage r)) a
                                (filter (set catalog-levels) (levels-of (.scope r)))))
                      acc ours)
          events (+ events (count ours))
          last-seq (if (seq rs) (.sequence ^UsageRecord (last rs)) (dec from))]
      (cond
        (or (empty? rs) (>= last-seq (.lastSequence b))) {:overage acc :overage-events events :complete? true}
        (>= (inc pages) replay-max-pages) {:overage acc :overage-events events :complete? false}
        :else (recur (inc last-seq) acc events (inc pages))))))

(defn- usage! [this op]
  (let [{:keys [opts ^RationClient conn]} this
        q (.quotas conn)
        levels (into (sorted-map)
                     (for [[scope _] (:catalog opts)]
                       [scope (.total (.aggregateUsage ^QuotaClient q ^String scope ^String (:resource opts)
                                                       (LedgerTime/ofMillis 0)
                                                       (LedgerTime/ofMillis (dec Long/MAX_VALUE))))]))]
    (assoc op :type :ok
           :value (cond-> {:levels levels}
                    ;; After the aggregates: the overage billed, for the checker's report and
                    ;; its bound (never more than the holders overdrew).
                    (soft? opts) (merge (overage-by-level q (keys levels) (:resource opts)))))))

(defn- set-catalog! [^RationClient conn opts]
  (doseq [[scope limit :as entry] (:catalog opts)]
    (let [deadline (+ (System/nanoTime) (* 60 1000000000))]
      (loop []
        (let [r (try (.setQuota (.quotas conn)
                                (-> (QuotaDefinition/rate scope (:resource opts) (long limit) Window/DAY)
                                    (.unit "calls") (.actor "jepsen") (.reason "setup")
                                    (cond-> (pos? (overdraft-of entry)) (.overdraft (overdraft-of entry)))
                                    (.build)))
                     (catch Exception e e))]
          (cond
            (and (not (instance? Exception r)) (= Outcome/SUCCESS (.outcome r))) r
            (> (System/nanoTime) deadline) (throw (ex-info "could not set the catalog" {:scope scope :last (str r)}))
            :else (do (Thread/sleep 500) (recur))))))))

(defrecord BudgetClient [opts state ^RationClient conn]
  client/Client
  (open! [this test _node]
    (let [t (:thread this)
          addrs (db/client-addresses (:db test) test)]
      (assoc this
             :conn (client/open-ration-client addrs t opts (:seed test 0) (+ 5000 t))
             :state (atom {}))))

  (setup! [_ _test]
    (set-catalog! conn opts))

  (invoke! [this _test op]
    (client/with-errors op
      (case (:f op)
        :spend (spend! this op)
        :close (close! this op)
        :usage (usage! this op))))

  (teardown! [_ _])
  (close! [_ _]
    (when-let [^QuotaLimiter l (:limiter @state)] (.close l))
    (when conn (.close conn)))

  client/Reusable
  (reusable? [_ _] true)

  client/Prepare
  (prepare [this _ op]
    (let [o (:opts this)]
      (case (:f op)
        :spend (assoc op :value {:scope (if (:scope-per-holder? o)
                                          (nth (:scopes o) (mod (:thread this) (count (:scopes o))))
                                          (gen/rand-nth* (:scopes o)))
                                 :n (inc (gen/rand-int* (:max-spend o)))
                                 :holder (:thread this)})
        (assoc op :value {})))))

(defn client [opts] (map->BudgetClient {:opts opts}))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name (str "quota-budget" (when (soft? opts) "-soft") (when (seq (:rogue-holders opts)) "-rogue"))
     :opts opts
     :client (client opts)
     :generator (gen/repeat {:f :spend})
     ;; After the heal every holder checks once more (through budgets renewed or taken anew),
     ;; returns its budgets, then one thread reads what the usage log billed.
     :final-generator [(gen/each-thread-once {:f :spend})
                       (gen/each-thread-once {:f :close})
                       ;; Only once every holder's close completed (else the read may race the
                       ;; last returns, as the pool-quota workload's did).
                       (gen/synchronize (gen/once {:f :usage}))]}))
