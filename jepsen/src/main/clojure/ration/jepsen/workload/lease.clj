(ns ration.jepsen.workload.lease
  "The lease workload. Each client thread is one holder (an edge) of one tenant's limit that
  admits batches through the real regional limiter (dev.ration.client.limiter.RateLimiter and
  its LeasedBucket, docs/LIMITER.md): the limiter acquires, renews (at a quarter of the lease,
  presenting its version) and returns leases in the background, and expires them locally at
  sent + ttl·(1−ε) − margin on the harness's monotonic clock. ε is the limiter's
  driftFraction, set to the checker's :epsilon (0.1), so a leader clock up to 1/(1−ε) fast
  stays inside the promise.

  The limiter's lease calls go through a recording LeaseTransport: each call is recorded in
  the history as its own op (a fresh integer process from the interpreter's side range, since
  the limiter's calls run concurrently with the thread's ops and with each other), with the
  values the lease checkers need (ration.jepsen.checker):
    :acquire  {:tenant :req-id :demand-rate :demand-burst}    ok + lease (:lease-id :rate :burst :ttl-ms ...) :start-balance
    :renew    {:tenant :req-id :lease-id :version ...}        ok + lease
    :release  {:tenant :req-id :lease-id :version :unused}    ok + {:credited :already-gone}
  Request ids are explicit ((thread, the client's next id)), the client id fixed per thread.

  The thread's own ops:
    :admit       {:tenant :n}  ok + {:n admitted (n or 0) :asked :reason :emergency? :holder
                 :lease-id :lease-ids} (limiter.decide(n); :emergency? iff the reason is
                 ADMITTED_EMERGENCY; :holder is the thread (the cid of its lease calls' req-ids);
                 :lease-ids are the limiter's lease just before and after)
    :close       {:tenant}     ok + {:lease-id}: limiter.close() (invalidate, then return the
                 unused balance; the return is recorded as a :release); the next :admit starts a
                 fresh limiter
    :resend      the limiter's last lease call again under the same request id (recorded with
                 the call's :f and :resend? true; its answer is not given to the limiter)
    :ledger-read {:tenant}     ok + {:limit :leases}
    :stale-release {:tenant :lease-id :version}  with :stale-returns: a return of the holder's
                 live lease presenting a version other than its current one, under a fresh
                 request id, as a return delayed past the idempotency retention or a restarted
                 holder's old return would arrive. It is not the holder's own return (the
                 holder keeps spending), so the lifecycle checker does not read it as one; the
                 ledger must refuse it (VERSION_MISMATCH) and keep counting the lease, or the
                 share it frees is granted again while the holder spends it, which the
                 conservation checkers see.
  A holder keeps its state across :info (the edge did not crash): its client is Reusable.

  Tenants t1–t3 are HARD; t4 is BEST_EFFORT with an emergency budget E (:emergency) on its
  limit, and its holders' limiters have emergencyEnabled: after local expiry each may admit up
  to E tokens once per disconnection (docs/LIMITER.md, \"Hard vs best-effort\")."
  (:require [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.util :as u])
  (:import (dev.ration.client LimitSpec RationClient)
           (dev.ration.client.transport RawClient)
           (dev.ration.client.limiter.internal LeaseTransport Limiters)
           (dev.ration.client.limiter Decision Decision$Reason LeaseInfo LimitInfo LimiterOptions
                                      LimiterScheduler RateLimiter)
           (dev.ration.client.time LedgerTime)
           (dev.ration.wire Mode Outcome)
           (dev.ration.wire.lease LeaseView)
           (dev.ration.protocol Request$AcquireLease Request$RenewLease Request$ReturnLease
                                       Response$LeaseReply Response$ReturnReply)
           (java.time Duration)
           (java.util.concurrent CompletableFuture ScheduledThreadPoolExecutor ThreadFactory TimeUnit)
           (java.util.function BiConsumer)))

(def resource "jepsen")

(def defaults
  {:tenants {"t1" {:rate 100 :burst 50} "t2" {:rate 100 :burst 50} "t3" {:rate 60 :burst 30}
             ;; best-effort: E tokens per holder per disconnection after local expiry
             "t4" {:rate 60 :burst 30 :mode :best-effort :emergency 15}}
   :lease-ms 3000
   :grace-ms 1000
   :epsilon 0.1              ; the limiter's driftFraction and the checker's margin
   :demand-fraction 0.6      ; each holder asks for this share of R and B (2 holders contend)
   :admit-max 20             ; an :admit asks for 1..admit-max tokens (about the rate share, in all)
   :op-timeout-ms 3000       ; client/timeout: past it the op is :info
   :request-deadline-ms 2000})

;; ------------------------------------------------------------------ conversions

(defn lease-view->map
  "A lease as a wire reply carries it (the calls sent through RawClient)."
  [^LeaseView l]
  {:lease-id (.leaseId l) :tenant (.tenant l) :holder (.holder l) :epoch (.epoch l)
   :version (.version l) :rate (.rateShare l) :burst (.burstShare l)
   :counted-rate (.countedRate l) :counted-burst (.countedBurst l)
   :granted-at-ms (.grantedAtMillis l) :expires-at-ms (.expiresAtMillis l)
   :counted-until-ms (.countedUntilMillis l) :ttl-ms (.leaseDurationMillis l)})

(defn lease-info->map
  "A lease as the typed client API returns it (listLeases): the same map as lease-view->map."
  [^LeaseInfo l]
  {:lease-id (.leaseId l) :tenant (.tenant l) :holder (.holder l) :epoch (.epoch l)
   :version (.version l) :rate (.rateShare l) :burst (.burstShare l)
   :counted-rate (.countedRate l) :counted-burst (.countedBurst l)
   :granted-at-ms (.millis ^LedgerTime (.grantedAt l)) :expires-at-ms (.millis ^LedgerTime (.expiresAt l))
   :counted-until-ms (.millis ^LedgerTime (.countedUntil l)) :ttl-ms (.toMillis ^Duration (.leaseDuration l))})

(defn limit-info->map [^LimitInfo l]
  {:rate (.ratePerSecond l) :burst (.burst l) :version (.version l)
   :counted-rate (.countedRate l) :counted-burst (.countedBurst l)
   :granted-rate (.grantedRate l) :granted-burst (.grantedBurst l)
   :pool (.pool l) :leases (.leases l) :pending-shrinks (.pendingShrinks l)})

(defn- outcome-kw [^Outcome o] (keyword (.toLowerCase (str o))))

(defn reply->completion
  "The completion of a lease call op (acquire, renew or release) from the ledger's reply."
  [op reply]
  (let [v (:value op)]
    (case (:f op)
      (:acquire :renew) (let [^Response$LeaseReply r reply]
                          (if (and (= Outcome/SUCCESS (.outcome r)) (.lease r))
                            (assoc op :type :ok :value (cond-> (merge v (lease-view->map (.lease r)))
                                                         (= :acquire (:f op)) (assoc :start-balance (.startBalance r))))
                            (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))])))
      (:release :stale-release) (let [^Response$ReturnReply r reply]
                 (if (= Outcome/SUCCESS (.outcome r))
                   (assoc op :type :ok :value (assoc v :credited (.credited r) :already-gone (.alreadyGone r)))
                   (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))]))))))

;; ------------------------------------------------------------------ the recording transport

(defn recording-transport
  "A LeaseTransport that sends each lease call through send! (fn [req-id request] ->
  CompletableFuture of the reply) under the request id the limiter gives it (fresh ones come
  from next-id!; the limiter resends an unanswered renewal under its first id) and records it in the
  history through record! (fn [op]; the recorder stamps :time) as its own op, under a fresh
  process from next-process!. The invocation is recorded before the call is sent and the
  completion before the limiter sees the answer. Each call is remembered in (:last-call
  @state) for :resend. timeout-ms bounds a call (past it: :info, and the limiter retries)."
  [{:keys [send! next-id! record! next-process! state tenant cid timeout-ms]}]
  (letfn [(call [req-id f value request]
            (let [v (assoc value :tenant tenant :req-id [cid req-id])
                  inv {:type :invoke :process (next-process!) :f f :value v}
                  _ (record! inv)
                  _ (swap! state assoc :last-call {:f f :value v :request request})
                  ^CompletableFuture fut (try (send! req-id request)
                                              (catch Throwable t (CompletableFuture/failedFuture t)))]
              (-> fut
                  (.orTimeout (long timeout-ms) TimeUnit/MILLISECONDS)
                  (.whenComplete (reify BiConsumer
                                   (accept [_ reply err]
                                     (record! (if err
                                                (client/error-completion inv err)
                                                (try (reply->completion inv reply)
                                                     (catch Throwable t (client/error-completion inv t)))))))))))]
    (reify LeaseTransport
      (nextRequestId [_] (next-id!))
      (acquire [_ req-id tenant* res holder demand-rate demand-burst]
        (call req-id :acquire {:demand-rate demand-rate :demand-burst demand-burst}
              (Request$AcquireLease. tenant* res holder demand-rate demand-burst)))
      (renew [_ req-id lease-id version demand-rate demand-burst admitted rejected emergency]
        (call req-id :renew {:lease-id lease-id :version version :demand-rate demand-rate :demand-burst demand-burst
                      :admitted admitted :rejected rejected :emergency-used emergency}
              (Request$RenewLease. lease-id version demand-rate demand-burst admitted rejected emergency)))
      (returnLease [_ req-id lease-id version unused]
        (call req-id :release {:lease-id lease-id :version version :unused unused}
              (Request$ReturnLease. lease-id version unused))))))

;; ------------------------------------------------------------------ the client

(defn prepare-op
  "The op to record for an intent, given whether the holder has a limiter and its last lease
  call. Pure but for the seeded rng."
  [{:keys [tenant opts limiter last-call]} op]
  (let [want (:f op)
        live (when limiter
               (let [o (.lease ^RateLimiter limiter)]
                 (when (.isPresent o) (.get o))))
        f (cond
            (and (= want :resend) (nil? last-call)) :ledger-read
            (and (= want :close) (nil? limiter)) :admit
            (and (= want :stale-return) (nil? live)) :admit
            (#{:admit :close :resend :ledger-read :stale-return} want) want
            :else :admit)]
    (case f
      :stale-return (let [^LeaseInfo l live]
                      (assoc op :f :stale-release
                             :value {:tenant tenant :lease-id (.leaseId l)
                                     :version (max 0 (dec (.version l))) :unused 0}))
      :admit (assoc op :f :admit :value {:tenant tenant :n (+ 1 (gen/rand-int* (:admit-max opts)))})
      :close (assoc op :f :close :value {:tenant tenant})
      :ledger-read (assoc op :f :ledger-read :value {:tenant tenant})
      :resend (assoc op :f (:f last-call) :value (assoc (:value last-call) :resend? true)))))

(defn- lease-id-of [^RateLimiter l]
  (when l (let [o (.lease l)] (when (.isPresent o) (.leaseId ^LeaseInfo (.get o))))))

(defn- daemon-executor [name]
  (doto (ScheduledThreadPoolExecutor.
         1 (reify ThreadFactory
             (newThread [_ r] (doto (Thread. ^Runnable r ^String name) (.setDaemon true)))))
    (.setRemoveOnCancelPolicy true)))

(defn best-effort?
  "Whether the tenant's limit is BEST_EFFORT (:mode :best-effort in its options)."
  [opts tenant]
  (= :best-effort (get-in opts [:tenants tenant :mode])))

(defn limit-spec
  "The LimitSpec the workload sets for a tenant: HARD, or BEST_EFFORT with emergency E."
  [opts tenant]
  (let [{:keys [rate burst emergency]} (get (:tenants opts) tenant)]
    (-> (LimitSpec/builder tenant resource)
        (.ratePerSecond rate) (.burst burst)
        (.mode (if (best-effort? opts tenant) Mode/BEST_EFFORT Mode/HARD))
        (.emergency (long (or emergency 0)))
        (.leaseDuration (Duration/ofMillis (:lease-ms opts)))
        (.grace (Duration/ofMillis (:grace-ms opts)))
        (.build))))

(defn limiter-options
  "The holder's LimiterOptions builder: demand = its share of R and B, driftFraction = ε,
  emergency spending enabled iff the tenant is best-effort."
  [opts tenant]
  (let [{:keys [rate burst]} (get (:tenants opts) tenant)]
    (-> (LimiterOptions/builder)
        (.demand (long (Math/ceil (* rate (:demand-fraction opts))))
                 (long (Math/ceil (* burst (:demand-fraction opts)))))
        (.driftFraction (double (:epsilon opts)))
        (.emergencyEnabled (best-effort? opts tenant)))))

(defn- new-limiter
  "A RateLimiter for the holder's tenant over the recording transport."
  [test ^RationClient conn opts state ^ScheduledThreadPoolExecutor executor]
  (let [{:keys [tenant cid]} @state
        transport (recording-transport
                   {:send! (fn [req-id request]
                             (.call (RawClient/of conn) (long req-id) request (Duration/ofMillis (:request-deadline-ms opts))))
                    :next-id! #(.nextRequestId conn)
                    :record! #(client/record! test %)
                    :next-process! #(client/side-process! test)
                    :state state :tenant tenant :cid cid :timeout-ms (:op-timeout-ms opts)})
        options (.build ^dev.ration.client.limiter.LimiterOptions$Builder (limiter-options opts tenant))]
    (Limiters/create transport (LimiterScheduler/of executor) tenant resource (str "h" cid) options)))

(defrecord LeaseClient [opts state ^RationClient conn executor]
  client/Client
  (open! [this test node]
    (let [t (:thread this)
          addrs (db/client-addresses (:db test) test)
          tenants (vec (sort (keys (:tenants opts))))
          c (client/open-ration-client addrs t opts (:seed test 0) (inc t))]
      (assoc this :conn c
             :executor (daemon-executor (str "jepsen-limiter-" t))
             :state (atom {:tenant (tenants (mod t (count tenants)))
                           :cid t
                           :opts opts
                           :limiter nil
                           :last-call nil}))))

  (setup! [_ _]
    (doseq [tenant (keys (:tenants opts))]
      (let [spec (limit-spec opts tenant)]
        ;; expectedVersion 0 creates; STALE_CONFIG means an earlier attempt already did.
        ;; Retried for a while: the cluster may still be settling after its first election.
        (when-not (u/await-fn #(do (.setLimit conn spec) true) 60000 500)
          (throw (ex-info (str "could not set the limit of " tenant " within 60 s") {:tenant tenant}))))))

  (invoke! [_ test op]
    (client/with-errors op
      (let [v (:value op)]
        (case (:f op)
          :admit (let [^RateLimiter l (or (:limiter @state)
                                          (:limiter (swap! state assoc :limiter (new-limiter test conn opts state executor))))
                       before (lease-id-of l)
                       ^Decision d (.decide l (long (:n v)))
                       after (lease-id-of l)]
                   (assoc op :type :ok :value (assoc v :n (if (.allowed d) (:n v) 0) :asked (:n v)
                                                     :reason (keyword (str/lower-case (str (.reason d))))
                                                     :emergency? (= Decision$Reason/ADMITTED_EMERGENCY (.reason d))
                                                     :holder (:cid @state)
                                                     :lease-id (or after before)
                                                     :lease-ids (vec (distinct (remove nil? [before after]))))))
          :close (let [^RateLimiter l (:limiter @state)
                       id (lease-id-of l)]
                   (swap! state assoc :limiter nil)
                   (when l (.close l))
                   (assoc op :type :ok :value (assoc v :lease-id id :holder (:cid @state))))
          :stale-release
          (let [reply (client/await! (.call (RawClient/of conn) (.nextRequestId conn)
                                            (Request$ReturnLease. (long (:lease-id v)) (long (:version v)) 0)
                                            (Duration/ofMillis (:request-deadline-ms opts)))
                                     (:op-timeout-ms opts))]
            (reply->completion op reply))
          (:acquire :renew :release)
          (let [req-id (second (:req-id v))
                request (:request (:resend @state))
                reply (client/await! (.call (RawClient/of conn) (long req-id) request (Duration/ofMillis (:request-deadline-ms opts)))
                                     (:op-timeout-ms opts))]
            (reply->completion op reply))
          :ledger-read (let [lim (client/await! (.getLimitAsync conn (:tenant v) resource) (:op-timeout-ms opts))
                             ls (client/await! (.listLeasesAsync conn (:tenant v) resource) (:op-timeout-ms opts))]
                         (if (.isPresent ^java.util.Optional lim)
                           (assoc op :type :ok :value (assoc v :limit (limit-info->map (.get ^java.util.Optional lim))
                                                             :leases (mapv lease-info->map ls)))
                           (assoc op :type :ok :value (assoc v :limit nil :leases (mapv lease-info->map ls)))))))))

  (teardown! [_ _])
  (close! [_ _]
    (when-let [^RateLimiter l (and state (:limiter @state))]
      (try (.close l) (catch Throwable _)))
    (when executor (.shutdownNow ^ScheduledThreadPoolExecutor executor))
    (when conn (.close conn)))

  client/Reusable
  (reusable? [_ _] true)

  client/Prepare
  (prepare [_ _ op]
    (let [op' (prepare-op @state op)]
      (if (:resend? (:value op'))
        ;; The request to resend is the one whose value is recorded (the last call may change
        ;; before the worker runs it: keep them together).
        (do (swap! state assoc :resend (:last-call @state)) op')
        op'))))

(defn client
  "A lease client: one holder with its own limiter per client thread."
  [opts]
  (map->LeaseClient {:opts opts}))

(defn generator
  "Holder intents, weighted: mostly admissions, sometimes a close (the next admission starts a
  fresh limiter and lease), a ledger read or a resend of the limiter's last lease call; with
  stale-returns? also stale returns of the holder's live lease."
  ([] (generator false))
  ([stale-returns?]
   (gen/mix (map gen/repeat (concat (repeat 10 {:f :admit})
                                    [{:f :close} {:f :ledger-read} {:f :resend}]
                                    (when stale-returns? [{:f :stale-return} {:f :stale-return}]))))))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name (if (:stale-returns opts) "lease-stale-returns" "lease")
     :opts opts
     :client (client opts)
     :generator (generator (boolean (:stale-returns opts)))
     ;; Three rounds of final reads: on a loaded machine a freshly restarted node's first
     ;; answer (cold JIT, NOT_LEADER) can use up the 2 s request deadline; the client then
     ;; follows the leader hint and a later round reads from the leader.
     ;; A plain sequence, not gen/phases: synchronize inside gen/clients would wait for the
     ;; nemesis thread too, forever.
     :final-generator [(gen/each-thread-once {:f :ledger-read})
                       (gen/each-thread-once {:f :ledger-read})
                       (gen/each-thread-once {:f :ledger-read})]}))
