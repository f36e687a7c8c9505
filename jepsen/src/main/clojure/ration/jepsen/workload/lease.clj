(ns ration.jepsen.workload.lease
  "The lease workload. Each client thread is one holder (an edge) of one tenant's limit; it
  acquires a lease, admits batches from a local token bucket, renews (presenting its version),
  returns (with its unused balance), resends its last mutation under the same request id, and
  reads the ledger. Ops and values follow JEPSEN-NOTES §7's table.

  Until the regional limiter exists the holder's bucket is modelled here, honestly and simply
  (the pure functions below; holder-spec lets a test substitute a misbehaving holder):
  - a lease's bucket starts at the granted startBalance when the acquire completes and refills
    at the rate share, capped at the burst share; renewal never refills it (it is brought up to
    date and truncated to the new burst share);
  - the holder may admit only before first-invocation(acquire|renew) + ttl·(1−ε), measured on
    the harness's monotonic clock from when it FIRST sent that request id;
  - returning invalidates the bucket first, then sends RETURN_LEASE.
  When the regional limiter lands, :admit will call it instead of admit-decision.

  A holder keeps its state across :info (its request timed out; the edge did not crash), so
  its client is Reusable and its client id is fixed per thread: a resend after :info carries
  the same (client id, request id) as the original."
  (:require [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.util :as u])
  (:import (dev.ration.client LimitMode LimitSpec RationClient RationClientOptions)
           (dev.ration.client.protocol Outcome Request$AcquireLease Request$ListLeases
                                       Request$RenewLease Request$ReturnLease Request$GetLimit
                                       Response$LeaseReply Response$ReturnReply Response$GetLimitReply
                                       Response$LeaseList Response$LimitInfo Response$LeaseInfo)
           (java.time Duration)))

(def resource "jepsen")

(def defaults
  {:tenants {"t1" {:rate 100 :burst 50} "t2" {:rate 100 :burst 50} "t3" {:rate 60 :burst 30}}
   :lease-ms 3000
   :grace-ms 1000
   :epsilon 0.1
   :demand-fraction 0.6      ; each holder asks for this share of R and B (2 holders contend)
   :admit-max 8              ; an :admit asks for 1..admit-max tokens
   :op-timeout-ms 3000       ; client/timeout: past it the op is :info
   :request-deadline-ms 2000})

;; ------------------------------------------------------------------ the honest holder (pure)

(defn refill
  "The lease's bucket brought up to time t (ns): +rate·Δt, capped at burst."
  [lease t]
  (let [dt (max 0 (- t (:bal-time lease)))]
    (assoc lease
           :bal (min (double (:burst lease)) (+ (:bal lease) (* (:rate lease) (/ dt 1e9))))
           :bal-time (max t (:bal-time lease)))))

(defn usable? [lease t] (and lease (< t (:end lease))))

(defn valid-until
  "first-invoke + ttl·(1−ε), in ns."
  [first-invoke ttl-ms epsilon]
  (+ first-invoke (long (* ttl-ms (- 1.0 epsilon) 1e6))))

(def honest
  {:admit (fn [lease t n]
            ;; -> [lease' admitted]; nothing once the lease is no longer usable.
            (if-not (usable? lease t)
              [lease 0]
              (let [l (refill lease t), k (long (min n (Math/floor (:bal l))))]
                [(update l :bal - k) k])))
   :granted (fn [g t epsilon]
              ;; A fresh lease from an ok acquire completed at t.
              {:id (:lease-id g) :version (:version g) :rate (:rate g) :burst (:burst g)
               :bal (double (min (:start-balance g) (:burst g))) :bal-time t
               :end (valid-until (:first-invoke g) (:ttl-ms g) epsilon)})
   :renewed (fn [lease g t epsilon]
              ;; Keep the balance (never refill); truncate to the new burst share.
              (let [l (refill lease t)]
                (assoc l :version (:version g) :rate (:rate g) :burst (:burst g)
                       :bal (min (:bal l) (double (:burst g)))
                       :end (max (:end l) (valid-until (:first-invoke g) (:ttl-ms g) epsilon)))))
   :released (fn [lease t]
               ;; -> [nil unused]: invalidate first, then return what was left.
               [nil (long (Math/floor (:bal (refill lease t))))])})

;; ------------------------------------------------------------------ conversions

(defn lease-info->map [^Response$LeaseInfo l]
  {:lease-id (.leaseId l) :tenant (.tenant l) :holder (.holder l) :epoch (.epoch l)
   :version (.version l) :rate (.rateShare l) :burst (.burstShare l)
   :counted-rate (.countedRate l) :counted-burst (.countedBurst l)
   :granted-at-ms (.grantedAtMillis l) :expires-at-ms (.expiresAtMillis l)
   :counted-until-ms (.countedUntilMillis l) :ttl-ms (.leaseDurationMillis l)})

(defn limit-info->map [^Response$LimitInfo l]
  {:rate (.ratePerSecond l) :burst (.burst l) :version (.version l)
   :counted-rate (.countedRate l) :counted-burst (.countedBurst l)
   :granted-rate (.grantedRate l) :granted-burst (.grantedBurst l)
   :pool (.pool l) :leases (.leases l) :pending-shrinks (.pendingShrinks l)})

(defn- outcome-kw [^Outcome o] (keyword (.toLowerCase (str o))))

;; ------------------------------------------------------------------ the client

(defn- call! [^RationClient c opts req-id request]
  (client/await! (.call c (long req-id) request (Duration/ofMillis (:request-deadline-ms opts)))
                 (:op-timeout-ms opts)))

(defn- now-ns [test] (- (System/nanoTime) (:start-nanos test)))

(defn- mutation-value [state f t]
  ;; The value (and request) of a fresh mutation of kind f at time t.
  (let [{:keys [tenant lease]} state
        req-id (:next-req state)
        o (:opts state)
        {:keys [rate burst]} (get (:tenants o) tenant)]
    (case f
      :acquire {:tenant tenant :req-id [(:cid state) req-id]
                :demand-rate (long (Math/ceil (* rate (:demand-fraction o))))
                :demand-burst (long (Math/ceil (* burst (:demand-fraction o))))}
      :renew {:tenant tenant :req-id [(:cid state) req-id] :lease-id (:id lease) :version (:version lease)
              :demand-rate (long (Math/ceil (* rate (:demand-fraction o))))
              :demand-burst (long (Math/ceil (* burst (:demand-fraction o))))})))

(defn needs-renewal? [state t]
  (let [l (:lease state), ttl (* 1e6 (:lease-ms (:opts state)))]
    (and l (> t (- (:end l) (/ ttl 3))))))

(defn prepare-op
  "Pure: the holder's state and the op to record for the requested intent at time t.
  -> [state' op]."
  [state op t]
  (let [holder (:holder state)
        state (if (and (:lease state) (not (usable? (:lease state) t))) (assoc state :lease nil) state)
        want (:f op)
        f (cond
            (= want :ledger-read) :ledger-read
            (= want :resend) (if (:last state) :resend :ledger-read)
            (nil? (:lease state)) :acquire
            ((:renew? holder needs-renewal?) state t) :renew
            (= want :acquire) :renew
            :else want)]
    (case f
      :ledger-read [state (assoc op :f :ledger-read :value {:tenant (:tenant state)})]
      :resend (let [m (:last state)]
                [state (assoc op :f (:f m) :value (assoc (:value m) :resend? true))])
      (:acquire :renew) (let [v (mutation-value state f t)
                              m {:f f :value v :first-invoke t}]
                          [(-> state (update :next-req inc) (assoc :last m)) (assoc op :f f :value v)])
      :release (let [lease (:lease state)
                     [lease' unused] ((:released holder) lease t)
                     v {:tenant (:tenant state) :req-id [(:cid state) (:next-req state)]
                        :lease-id (:id lease) :version (:version lease) :unused unused}]
                 [(-> state (update :next-req inc) (assoc :lease lease' :last {:f :release :value v :first-invoke t}))
                  (assoc op :f :release :value v)])
      :admit (let [n (+ 1 (gen/rand-int* (:admit-max (:opts state))))
                   [lease' k] ((:admit holder) (:lease state) t n)]
               [(assoc state :lease lease' :admitted k)
                (assoc op :f :admit :value {:tenant (:tenant state) :lease-id (:id (:lease state)) :n n})]))))

(defn apply-completion
  "Pure: the holder's state after the completion c of a mutation (acquire/renew) at time t."
  [state c t]
  (let [holder (:holder state), eps (:epsilon (:opts state)), v (:value c)
        first-invoke (if (= (:req-id v) (get-in state [:last :value :req-id]))
                       (get-in state [:last :first-invoke])
                       t)
        g (assoc v :first-invoke first-invoke)
        lease (:lease state)]
    (if-not (= :ok (:type c))
      (if (and (= :fail (:type c)) (#{:lease-expired :lease-unknown} (second (:error c)))
               lease (= (:lease-id v) (:id lease)))
        (assoc state :lease nil)
        state)
      (case (:f c)
        :acquire (cond
                   (nil? lease) (assoc state :lease ((:granted holder) g t eps))
                   ;; A resent acquire answered again: same lease, nothing changes (no refill).
                   :else state)
        :renew (if (and lease (= (:lease-id v) (:id lease)) (>= (:version v) (:version lease)))
                 (assoc state :lease ((:renewed holder) lease g t eps))
                 state)
        state))))

(defrecord LeaseClient [opts state ^RationClient conn]
  client/Client
  (open! [this test node]
    (let [t (:thread this)
          addrs (db/client-addresses (:db test) test)
          i (mod t (count addrs))
          ordered (vec (concat (drop i addrs) (take i addrs)))
          tenants (vec (sort (keys (:tenants opts))))
          c (RationClient. (-> (RationClientOptions/builder)
                               (.addresses ordered)
                               (.connectTimeout (Duration/ofMillis 3000))
                               (.requestDeadline (Duration/ofMillis (:request-deadline-ms opts)))
                               (.maxRetries 5)
                               (.backoffBase (Duration/ofMillis 20))
                               (.backoffMax (Duration/ofMillis 300))
                               (.clientId (long (:seed test 0)) (long t))
                               (.build)))]
      (assoc this :conn c
             :state (atom {:tenant (tenants (mod t (count tenants)))
                           :cid t
                           :next-req (inc (bit-shift-left 1 40)) ; far from the client's own counter
                           :opts opts
                           :holder (:holder this honest)
                           :lease nil}))))

  (setup! [_ _]
    (doseq [[tenant {:keys [rate burst]}] (:tenants opts)]
      (let [spec (-> (LimitSpec/builder tenant resource)
                     (.ratePerSecond rate) (.burst burst) (.mode LimitMode/HARD)
                     (.leaseDuration (Duration/ofMillis (:lease-ms opts)))
                     (.grace (Duration/ofMillis (:grace-ms opts)))
                     (.build))]
        ;; expectedVersion 0 creates; STALE_CONFIG means an earlier attempt already did.
        ;; Retried for a while: the cluster may still be settling after its first election.
        (when-not (u/await-fn #(do (.setLimit conn spec) true) 60000 500)
          (throw (ex-info (str "could not set the limit of " tenant " within 60 s") {:tenant tenant}))))))

  (invoke! [_ test op]
    (client/with-errors op
      (let [v (:value op)
            c (case (:f op)
                :acquire (let [^Response$LeaseReply r
                               (call! conn opts (second (:req-id v))
                                      (Request$AcquireLease. (:tenant v) resource (str "h" (:cid @state))
                                                             (:demand-rate v) (:demand-burst v)))]
                           (if (= Outcome/SUCCESS (.outcome r))
                             (assoc op :type :ok :value (merge v (lease-info->map (.lease r))
                                                               {:start-balance (.startBalance r)}))
                             (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))])))
                :renew (let [^Response$LeaseReply r
                             (call! conn opts (second (:req-id v))
                                    (Request$RenewLease. (:lease-id v) (:version v) (:demand-rate v)
                                                         (:demand-burst v) 0 0 0))]
                         (if (= Outcome/SUCCESS (.outcome r))
                           (assoc op :type :ok :value (merge v (lease-info->map (.lease r))))
                           (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))])))
                :release (let [^Response$ReturnReply r
                               (call! conn opts (second (:req-id v))
                                      (Request$ReturnLease. (:lease-id v) (:version v) (:unused v)))]
                           (if (= Outcome/SUCCESS (.outcome r))
                             (assoc op :type :ok :value (assoc v :credited (.credited r) :already-gone (.alreadyGone r)))
                             (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))])))
                :admit (let [k (:admitted @state)]
                         (assoc op :type :ok :value (assoc v :n k)))
                :ledger-read (let [lim (client/await! (.getLimitAsync conn (:tenant v) resource) (:op-timeout-ms opts))
                                   ls (client/await! (.listLeasesAsync conn (:tenant v) resource) (:op-timeout-ms opts))]
                               (if (.isPresent ^java.util.Optional lim)
                                 (assoc op :type :ok :value (assoc v :limit (limit-info->map (.get ^java.util.Optional lim))
                                                                   :leases (mapv lease-info->map ls)))
                                 (assoc op :type :ok :value (assoc v :limit nil :leases (mapv lease-info->map ls))))))]
        (when (#{:acquire :renew} (:f op))
          (swap! state apply-completion c (now-ns test)))
        c)))

  (teardown! [_ _])
  (close! [_ _] (when conn (.close conn)))

  client/Reusable
  (reusable? [_ _] true)

  client/Prepare
  (prepare [_ _ op]
    (let [[s' op'] (prepare-op @state op (:time op))]
      (reset! state s')
      op')))

(defn client
  "A lease client; :holder overrides the honest holder (tests only)."
  ([opts] (client opts honest))
  ([opts holder] (map->LeaseClient {:opts opts :holder holder})))

(defn generator
  "Holder intents, weighted: mostly admissions; the holder turns an intent into what its state
  allows (no lease -> acquire; lease near its end -> renew)."
  []
  (gen/mix (map gen/repeat (concat (repeat 5 {:f :admit})
                                   [{:f :acquire} {:f :renew} {:f :release} {:f :ledger-read} {:f :resend}]))))

(defn workload
  "{:client :generator :final-generator :checker-opts}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name "lease"
     :opts opts
     :client (client opts (:holder opts honest))
     :generator (generator)
     ;; Three rounds of final reads: on a loaded machine a freshly restarted node's first
     ;; answer (cold JIT, NOT_LEADER) can use up the 2 s request deadline; the client then
     ;; follows the leader hint and a later round reads from the leader.
     ;; A plain sequence, not gen/phases: synchronize inside gen/clients would wait for the
     ;; nemesis thread too, forever.
     :final-generator [(gen/each-thread-once {:f :ledger-read})
                       (gen/each-thread-once {:f :ledger-read})
                       (gen/each-thread-once {:f :ledger-read})]}))
