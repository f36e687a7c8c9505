(ns ration.jepsen.workload.ttl
  "The TTL workload (docs/TTL.md): put / get / cas / refresh of short-lived entries on a small
  key set, plus lock / unlock of a few locks through TtlEntries.tryLock (fencing tokens).

  Values are unique per invocation (\"<thread>-<n>\"), so a read of a value nobody tried to
  write is detectable exactly. Each thread remembers the last version it saw per key (its cas
  presents it: sometimes right, often stale) and the locks it holds (unlock releases with the
  token). State survives :info (the client is Reusable): a lock whose acquire was :info is not
  assumed held; it lapses by itself after its TTL.

  Ops and values (ledger times in ms, as the server reported them):
    :put     {:key :value :ttl-ms}                  ok + {:version :expires-at-ms}
    :cas     {:key :value :ttl-ms :expected-version} ok + {:version :expires-at-ms};
                                                    :fail [:outcome :version_mismatch] + :current-version
    :refresh {:key :ttl-ms}                         ok + {:version :expires-at-ms}; :fail [:outcome :entry_unknown]
    :get     {:key}                                 ok + {:found? :read-at-ms [:value :version :expires-at-ms]}
                                                    (:near-cache? opts: read through the thread's
                                                    near cache, ok + {:found? :near? true
                                                    :staleness-ms [:value :version :expires-at-ms]},
                                                    no :read-at-ms: memory knows no ledger time)
    :lock    {:lock :owner :ttl-ms}                 ok + {:token :expires-at-ms}; :fail [:outcome :held]
    :unlock  {:lock :token}                         ok + {:released?}"
  (:require [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen])
  (:import (dev.ration.client RationClient)
           (dev.ration.client.transport RawClient)
           (dev.ration.wire Outcome)
           (dev.ration.protocol Request$Ttl Response$Ttl TtlRequest$Get
                                       TtlResponse$GetReply TtlResponse$EntryInfo)
           (dev.ration.client.ttl Entry Lock NearCache NearCache$Options TtlEntries WriteResult DeleteResult)
           (java.nio.charset StandardCharsets)
           (java.time Duration)
           (java.util Optional)))

(def namespace-name "jepsen")

(def defaults
  {:keys ["k0" "k1" "k2"]
   :locks ["L0" "L1"]
   :min-ttl-ms 1000
   :max-ttl-ms 3000
   :op-timeout-ms 3000
   :request-deadline-ms 2000
   ;; The near-cache variant: polls of 400 ms, memory answers while confirmed within 1 s.
   :near-cache? false
   :poll-wait-ms 400
   :max-staleness-ms 1000})

(defn- rand-ttl [opts]
  (+ (:min-ttl-ms opts) (gen/rand-int* (inc (- (:max-ttl-ms opts) (:min-ttl-ms opts))))))

(defn- outcome-kw [^Outcome o] (keyword (.toLowerCase (str o))))

(defn prepare-op
  "Pure (but for the seeded rng): the thread's state and the op to record for an intent.
  -> [state' op]."
  [state op]
  (let [o (:opts state)
        k (gen/rand-nth* (:keys o))
        fresh-value (str (:cid state) "-" (:next state))
        state' (update state :next inc)]
    (case (:f op)
      :put [state' (assoc op :value {:key k :value fresh-value :ttl-ms (rand-ttl o)})]
      :cas [state' (assoc op :value {:key k :value fresh-value :ttl-ms (rand-ttl o)
                                     :expected-version (get-in state [:versions k] 0)})]
      :refresh [state (assoc op :value {:key k :ttl-ms (rand-ttl o)})]
      :get [state (assoc op :value {:key k})]
      (:lock :unlock)
      (let [held (:held state)]
        (if (and (= :unlock (:f op)) (seq held))
          (let [[l {:keys [token]}] (first held)]
            [(update state :held dissoc l) (assoc op :f :unlock :value {:lock l :token token})])
          (let [l (gen/rand-nth* (:locks o))]
            [state (assoc op :f :lock :value {:lock l :owner (str "p" (:cid state)) :ttl-ms (rand-ttl o)})]))))))

(defn- write-completion [op ^WriteResult r]
  (if (= Outcome/SUCCESS (.outcome r))
    (assoc op :type :ok :value (assoc (:value op) :version (.version r) :expires-at-ms (.millis (.expiresAt r))))
    (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))]
           :value (assoc (:value op) :current-version (.currentVersion r)))))

(defn get-reply->map
  "A TTL_GET answer (TtlEntries.get drops readAtMillis, which the freshness check needs)."
  [^TtlResponse$GetReply r]
  (if (.found r)
    (let [^TtlResponse$EntryInfo e (.entry r)]
      {:found? true :read-at-ms (.readAtMillis r) :value (String. (.value e) StandardCharsets/UTF_8)
       :version (.version e) :expires-at-ms (.expiresAtMillis e)})
    {:found? false :read-at-ms (.readAtMillis r)}))

(defn- bytes-of [^String s] (.getBytes s StandardCharsets/UTF_8))

(defn near-entry->map
  "A near cache's answer: what the freshness checker reads, with the staleness bound it promised."
  [^Optional o staleness-ms]
  (if (.isPresent o)
    (let [^Entry e (.get o)]
      {:found? true :near? true :staleness-ms staleness-ms
       :value (String. (.value e) StandardCharsets/UTF_8) :version (.version e)
       :expires-at-ms (.millis (.expiresAt e))})
    {:found? false :near? true :staleness-ms staleness-ms}))

(defn- open-near-cache ^NearCache [^RationClient c opts]
  (.cached (.ttl c) namespace-name
           (NearCache$Options. 10000 (Duration/ofMillis (:poll-wait-ms opts))
                               (Duration/ofMillis (:max-staleness-ms opts)) (Duration/ofMillis 100) nil)))

(defrecord TtlClient [opts state ^RationClient conn ^NearCache near]
  client/Client
  (open! [this test _node]
    (let [t (:thread this)
          addrs (db/client-addresses (:db test) test)
          c (client/open-ration-client addrs t opts (:seed test 0) (+ 1000 t))]
      (assoc this :conn c
             :near (when (:near-cache? opts) (open-near-cache c opts))
             :state (atom {:cid t :next 0 :opts opts :versions {} :held {}}))))

  (setup! [_ _])

  (invoke! [_ test op]
    (client/with-errors op
      (let [^TtlEntries ttl (.ttl conn)
            v (:value op)
            to (:op-timeout-ms opts)
            c (case (:f op)
                :put (write-completion op (client/await! (.putAsync ttl namespace-name (:key v) (bytes-of (:value v)) (Duration/ofMillis (long (:ttl-ms v)))) to))
                :cas (write-completion op (client/await! (.compareAndSetAsync ttl namespace-name (:key v) (long (:expected-version v))
                                                                              (bytes-of (:value v)) (Duration/ofMillis (long (:ttl-ms v)))) to))
                :refresh (write-completion op (client/await! (.refreshAsync ttl namespace-name (:key v) (Duration/ofMillis (long (:ttl-ms v))) 0) to))
                :get (if near
                       (assoc op :type :ok :value (merge v (near-entry->map (.get near ^String (:key v))
                                                                            (:max-staleness-ms opts))))
                       (let [^Response$Ttl r (client/await! (.call (RawClient/of conn) (Request$Ttl. (TtlRequest$Get. namespace-name (:key v) false))) to)]
                         (assoc op :type :ok :value (merge v (get-reply->map (.response r))))))
                :lock (let [^Optional ol (client/await! (.tryLockAsync ttl (:lock v) (:owner v) (Duration/ofMillis (long (:ttl-ms v)))) to)]
                        (if (.isPresent ol)
                          (let [^Lock l (.get ol)]
                            (swap! state assoc-in [:held (:lock v)] {:token (.fencingToken l)})
                            (assoc op :type :ok :value (assoc v :token (.fencingToken l) :expires-at-ms (.millis (.expiresAt l)))))
                          (assoc op :type :fail :error [:outcome :held])))
                :unlock (let [^DeleteResult r (client/await! (.deleteAsync ttl TtlEntries/LOCK_NAMESPACE (:lock v) (long (:token v))) to)]
                          (if (= Outcome/SUCCESS (.outcome r))
                            (assoc op :type :ok :value (assoc v :released? (.existed r)))
                            (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))]))))]
        (when-let [ver (and (#{:put :cas :refresh :get} (:f op)) (= :ok (:type c)) (get-in c [:value :version]))]
          (swap! state assoc-in [:versions (:key v)] ver))
        (when (and (= :cas (:f op)) (= :fail (:type c)))
          (swap! state assoc-in [:versions (:key v)] (get-in c [:value :current-version] 0)))
        c)))

  (teardown! [_ _])
  (close! [_ _]
    (when near (.close near))
    (when conn (.close conn)))

  client/Reusable
  (reusable? [_ _] true)

  client/Prepare
  (prepare [_ _ op]
    (let [[s' op'] (prepare-op @state op)]
      (reset! state s')
      op')))

(defn client [opts] (map->TtlClient {:opts opts}))

(defn generator
  "Intents, weighted: reads and writes of entries, some refreshes, some lock traffic."
  []
  (gen/mix (map gen/repeat (concat (repeat 3 {:f :get}) (repeat 2 {:f :put}) (repeat 2 {:f :cas})
                                   [{:f :refresh} {:f :lock} {:f :unlock}]))))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name (if (:near-cache? opts) "ttl-near-cache" "ttl")
     :opts opts
     :client (client opts)
     :generator (generator)
     ;; Three rounds, as in the lease workload: a cold node may eat the first deadline.
     :final-generator [(gen/each-thread-once {:f :get})
                       (gen/each-thread-once {:f :get})
                       (gen/each-thread-once {:f :get})]}))
