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
  checker must fail such a run."
  (:require [clojure.string :as str]
            [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen])
  (:import (dev.ration.client RationClient)
           (dev.ration.client.limiter LimiterScheduler)
           (dev.ration.client.quota QuotaClient QuotaDefinition QuotaLimiter QuotaLimiter$Decision
                                    QuotaLimiterOptions)
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
   :rogue-holders #{}
   :lease-ms 3000
   :epsilon 0.1
   :op-timeout-ms 3000
   :request-deadline-ms 2000})

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
        ^QuotaLimiter$Decision d (.decide (limiter-of this) scope (:resource (:opts this)) (long n))
        rogue? (contains? (:rogue-holders (:opts this)) (:thread this))]
    (assoc op :type :ok
           :value (assoc (:value op)
                         :admitted (if (or rogue? (.admitted d)) n 0)
                         :reason (if rogue? :rogue (keyword (.toLowerCase (str (.reason d)))))))))

(defn- close! [this op]
  (when-let [^QuotaLimiter l (:limiter @(:state this))]
    (client/await! (.closeAsync l) (* 2 (:op-timeout-ms (:opts this)))))
  (assoc op :type :ok))

(defn- usage! [this op]
  (let [{:keys [opts ^RationClient conn]} this
        q (.quotas conn)
        levels (into (sorted-map)
                     (for [[scope _] (:catalog opts)]
                       [scope (.total (.aggregateUsage ^QuotaClient q ^String scope ^String (:resource opts)
                                                       (LedgerTime/ofMillis 0)
                                                       (LedgerTime/ofMillis (dec Long/MAX_VALUE))))]))]
    (assoc op :type :ok :value {:levels levels})))

(defn- set-catalog! [^RationClient conn opts]
  (doseq [[scope limit] (:catalog opts)]
    (let [deadline (+ (System/nanoTime) (* 60 1000000000))]
      (loop []
        (let [r (try (.setQuota (.quotas conn)
                                (-> (QuotaDefinition/rate scope (:resource opts) (long limit) Window/DAY)
                                    (.unit "calls") (.actor "jepsen") (.reason "setup") (.build)))
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
        :spend (assoc op :value {:scope (gen/rand-nth* (:scopes o))
                                 :n (inc (gen/rand-int* (:max-spend o)))})
        (assoc op :value {})))))

(defn client [opts] (map->BudgetClient {:opts opts}))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name (if (seq (:rogue-holders opts)) "quota-budget-rogue" "quota-budget")
     :opts opts
     :client (client opts)
     :generator (gen/repeat {:f :spend})
     ;; After the heal every holder checks once more (through budgets renewed or taken anew),
     ;; returns its budgets, then one thread reads what the usage log billed.
     :final-generator [(gen/each-thread-once {:f :spend})
                       (gen/each-thread-once {:f :close})
                       (gen/once {:f :usage})]}))
