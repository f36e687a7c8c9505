(ns ration.jepsen.workload.reservation
  "The reservation workload (docs/QUOTAS.md): checkAndReserve / complete / cancel against a
  catalog of three hierarchy levels (org / tenant / project) with concurrent and allocation
  limits, duplicate request ids (resends), linearizable reads of every level's usage and, at
  the end, the whole usage log.

  Each client thread is a service holding up to :max-outstanding reservations. Its intents
  become what its state allows: a reserve at one of the scopes (jobs, and sometimes disk too:
  two items, all or nothing); a complete (actuals drawn per item) or cancel of its oldest
  outstanding reservation, sent even when that reservation has expired meanwhile (the ledger
  then settles it as expired); a read; a resend of its last mutation under the same request id
  (also the next op after an :info). Some granted reservations are abandoned on purpose and
  left to expire. Request ids are explicit ((client id, n), the client id fixed per thread) so a
  resend carries exactly the original's (client id, request id).

  Every reserve carries an application idempotency key (:idem-key, one per intent). With
  probability :kill-fraction its client is killed mid-call and a new client (new client id, so
  new transport keys) retries it with the same key, as a restarted service would; a resend
  after an :info goes through a new client the same way. The checker's :keys rule requires one
  reservation per key.

  Ops and values (ledger times in ms, as the server reported them):
    :reserve   {:scope :items [{:resource :amount}] :ttl-ms :req-id :idem-key [:kill-after-ms]}
               + {:restarted? :first-reservation-id} when retried by a new client (+ {:retry-type
                 :retry-error} when the killed attempt reserved and the retry did not)
               ok + {:reservation-id :expires-at-ms :config-version};
               :fail [:outcome :limit_exhausted] + {:level-scope :refused-resource}
    :complete  {:reservation-id :actuals [..] :req-id}   ok + {:how :quantities :event-seqs :already-settled?}
    :cancel    {:reservation-id :req-id}                 ok + the same; :fail [:outcome :reservation_unknown]
    :read      {:org}                                    ok + {:levels [{:scope :resource :kind :limit :held :allocated}]}
    :usage-log {}                                        ok + {:events [{:seq :event-id :type :scope :resource
                                                                         :quantity :reservation-id}] :last-seq}
  A resend carries :resend? true in its value."
  (:require [clojure.string :as str]
            [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.util :as u])
  (:import (dev.ration.client RationClient RationException)
           (dev.ration.client.transport RawClient)
           (dev.ration.wire Outcome Overage QuotaKind Window)
           (dev.ration.wire.quota QuotaSpec UsageEvent)
           (dev.ration.protocol Request$Quota Response$Quota
                                       QuotaRequest$Item QuotaRequest$ReserveKeyed QuotaRequest$CompleteReservation
                                       QuotaRequest$CancelReservation QuotaRequest$ListQuotas
                                       QuotaRequest$ReadUsage QuotaRequest$SetQuota
                                       QuotaResponse$ReserveReply QuotaResponse$SettleReply
                                       QuotaResponse$QuotaList QuotaResponse$QuotaInfo
                                       QuotaResponse$UsageBatch
                                       QuotaResponse$QuotaSetReply)
           (java.time Duration)
           (java.util.concurrent CompletableFuture)))

(def kinds {:concurrent QuotaKind/CONCURRENT :allocation QuotaKind/ALLOCATION})

(defn- enum-kw
  "An enum constant as a keyword (QuotaKind/RATE -> :rate, EventType/ALERT -> :alert); nil stays nil."
  [^Enum e]
  (when e (keyword (.toLowerCase (.name e)))))

(def defaults
  {:org "acme"
   ;; [scope resource kind limit]: jobs is held while a reservation is outstanding (concurrent);
   ;; disk stays allocated by what completions and expiries settle (allocation), so it fills
   ;; up during a run and its limits are reached too.
   :catalog [["acme" "jobs" :concurrent 12]
             ["acme/t1" "jobs" :concurrent 8]
             ["acme/t2" "jobs" :concurrent 8]
             ["acme/t1/p1" "jobs" :concurrent 5]
             ["acme/t1/p2" "jobs" :concurrent 5]
             ["acme/t2/p1" "jobs" :concurrent 5]
             ["acme" "disk" :allocation 80]
             ["acme/t1" "disk" :allocation 40]
             ["acme/t2/p1" "disk" :allocation 25]]
   :scopes ["acme" "acme/t1" "acme/t2" "acme/t1/p1" "acme/t1/p2" "acme/t2/p1"]
   :max-jobs 3
   :max-disk 6
   :disk-fraction 0.4         ; reservations that also ask for disk (two items)
   :abandon-fraction 0.1      ; granted reservations left to expire
   :kill-fraction 0.1         ; reserves whose client is killed mid-call and retried by a new client
   :max-outstanding 3
   :min-ttl-ms 1000
   :max-ttl-ms 4000
   :epsilon 0.1               ; drift margin: a reservation is surely held until first-invoke + ttl·(1−ε)
   :op-timeout-ms 3000
   :request-deadline-ms 2000})

(defn levels-of
  "The levels of a scope: its prefixes, org first."
  [scope]
  (let [parts (str/split scope #"/")]
    (mapv #(str/join "/" (take % parts)) (range 1 (inc (count parts))))))

;; ------------------------------------------------------------------ the thread's state (pure)

(defn- mutation [state f value]
  (let [v (cond-> (assoc value :req-id [(:cid state) (:next-req state)])
            ;; Every reserve carries an application idempotency key, one per intent, so a retry
            ;; from a restarted client (another client id) still names the same reservation.
            (= :reserve f) (assoc :idem-key (str "res-" (:cid state) "-" (:next-req state))))]
    [(-> state (update :next-req inc) (assoc :last {:f f :value v})) v]))

(defn prepare-op
  "Pure (but for the seeded rng): the thread's state and the op to record for an intent at time
  t (ns). -> [state' op]."
  [state op t]
  (let [o (:opts state)
        outstanding (:outstanding state)
        resend? (and (:resend-next? state) (:last state) (not= :read (:f op)))
        want (cond
               resend? :resend
               (and (= :resend (:f op)) (nil? (:last state))) :read
               (and (#{:complete :cancel} (:f op)) (empty? outstanding)) :reserve
               (and (= :reserve (:f op)) (>= (count outstanding) (:max-outstanding o))) :complete
               :else (:f op))
        state (if resend? (dissoc state :resend-next?) state)]
    (case want
      :read [state (assoc op :f :read :value {:org (:org o)})]
      :resend (let [m (:last state)]
                [state (assoc op :f (:f m) :value (cond-> (assoc (:value m) :resend? true)
                                                      resend? (assoc :after-info? true)))])
      :reserve (let [scope (gen/rand-nth* (:scopes o))
                     jobs {:resource "jobs" :amount (inc (gen/rand-int* (:max-jobs o)))}
                     items (if (< (gen/rand-double) (:disk-fraction o))
                             [jobs {:resource "disk" :amount (inc (gen/rand-int* (:max-disk o)))}]
                             [jobs])
                     ttl (+ (:min-ttl-ms o) (gen/rand-int* (inc (- (:max-ttl-ms o) (:min-ttl-ms o)))))
                     abandon? (< (gen/rand-double) (:abandon-fraction o))
                     kill-after (when (< (gen/rand-double) (:kill-fraction o 0)) (gen/rand-int* 21))
                     [state v] (mutation state :reserve (cond-> {:scope scope :items items :ttl-ms ttl}
                                                          kill-after (assoc :kill-after-ms kill-after)))]
                 [(assoc-in state [:last :abandon?] abandon?) (assoc op :f :reserve :value v)])
      (:complete :cancel)
      (let [r (first outstanding)
            state (update state :outstanding (comp vec rest))
            v (cond-> {:reservation-id (:id r)}
                (= :complete want) (assoc :actuals (mapv #(gen/rand-int* (inc (:amount %))) (:items r))))
            [state v] (mutation state want v)]
        [state (assoc op :f want :value v)]))))

(defn apply-completion
  "Pure: the thread's state after the completion c of one of its ops."
  [state c]
  (let [v (:value c)
        state (if (and (= :info (:type c)) (#{:reserve :complete :cancel} (:f c)))
                (assoc state :resend-next? true)
                state)]
    (if (and (= :reserve (:f c)) (= :ok (:type c)))
      (let [id (:reservation-id v)]
        (if (or (contains? (:seen state) id)
                (and (= (:req-id v) (get-in state [:last :value :req-id])) (get-in state [:last :abandon?])))
          (update state :seen (fnil conj #{}) id)
          (-> state
              (update :seen (fnil conj #{}) id)
              (update :outstanding conj {:id id :items (:items v)}))))
      state)))

;; ------------------------------------------------------------------ conversions

(defn- outcome-kw [^Outcome o] (keyword (.toLowerCase (str o))))

(defn reserve-completion [op ^QuotaResponse$ReserveReply r]
  (if (= Outcome/SUCCESS (.outcome r))
    (assoc op :type :ok :value (assoc (:value op) :reservation-id (.reservationId r)
                                      :expires-at-ms (.expiresAtMillis r) :config-version (.configVersion r)))
    (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))]
           :value (assoc (:value op) :level-scope (.levelScope r) :refused-resource (.resource r)))))

(defn settle-completion [op ^QuotaResponse$SettleReply r]
  (if (= Outcome/SUCCESS (.outcome r))
    (assoc op :type :ok :value (assoc (:value op) :how (enum-kw (.how r)) :quantities (vec (.quantities r))
                                      :event-seqs (vec (.eventSequences r)) :already-settled? (.alreadySettled r)))
    (assoc op :type :fail :error [:outcome (outcome-kw (.outcome r))])))

(defn quota-info->map [^QuotaResponse$QuotaInfo q]
  (let [^QuotaSpec s (.spec q)]
    {:scope (.scope s) :resource (.resource s) :kind (enum-kw (.kind s)) :limit (.limit s)
     :held (.held q) :allocated (.allocated q) :version (.version s)}))

(defn event->map [^UsageEvent e]
  {:seq (.sequence e) :event-id (.eventId e) :type (enum-kw (.type e)) :scope (.scope e)
   :resource (.resource e) :quantity (.quantity e) :reservation-id (.reservationId e)})

;; ------------------------------------------------------------------ the client

(defn- quota-call
  "Sends a quota request (under req-id when given) and returns its QuotaResponse."
  [^RationClient c opts req-id request]
  (let [deadline (Duration/ofMillis (:request-deadline-ms opts))
        f (if req-id
            (.call (RawClient/of c) (long req-id) (Request$Quota. request) deadline)
            (.call (RawClient/of c) (Request$Quota. request) deadline))
        ^Response$Quota r (client/await! f (:op-timeout-ms opts))]
    (.response r)))

(defn read-usage-log
  "The whole usage log, 1,000 records at a time (bounded: at most 500 pages)."
  [c opts]
  (loop [from 1, events [], last-seq 0, pages 0]
    (let [^QuotaResponse$UsageBatch b (quota-call c opts nil (QuotaRequest$ReadUsage. "" from 1000))
          es (mapv event->map (.events b))
          events (into events es)]
      (if (or (empty? es) (>= (:seq (peek es)) (.lastSequence b)) (>= pages 500))
        {:events events :last-seq (.lastSequence b)}
        (recur (inc (:seq (peek es))) events (.lastSequence b) (inc pages))))))

(defn- reserve-request [v]
  (QuotaRequest$ReserveKeyed. (:idem-key v) (:scope v)
                              (mapv #(QuotaRequest$Item. (:resource %) (long (:amount %))) (:items v))
                              0 (long (:ttl-ms v))))

(defn- restart!
  "Closes the thread's client and opens a new one under a new client id, as a restarted process
  would: its transport keys are new, only the reservation's idempotency key carries over."
  [conn-box state test opts t]
  (.close ^RationClient @conn-box)
  (let [n (:restarts (swap! state update :restarts (fnil inc 0)))]
    (reset! conn-box (client/open-ration-client (db/client-addresses (:db test) test) t opts
                                                (:seed test 0) (+ 2000 t (* 100000 n))))))

(defn killed-attempt
  "What the killed first attempt of a reserve told before its client was closed: {:granted id
  :expires-at-ms :config-version} (it answered with a reservation), :refused (it certainly had no effect: a domain refusal or a
  definite error) or :unknown (no answer, or an indeterminate one: it may still be applied,
  later than the retry's answer, from an entry a deposed leader had already replicated)."
  [^CompletableFuture f]
  (if-not (.isDone f)
    :unknown
    (try (let [^QuotaResponse$ReserveReply r (.response ^Response$Quota (.join f))]
           (if (= Outcome/SUCCESS (.outcome r))
             {:granted (.reservationId r) :expires-at-ms (.expiresAtMillis r) :config-version (.configVersion r)}
             :refused))
         (catch Throwable t
           (let [t (if (and (instance? java.util.concurrent.CompletionException t) (.getCause t))
                     (.getCause t) t)]
             (if (and (instance? RationException t) (.definite ^RationException t)) :refused :unknown))))))

(defn killed-completion
  "The completion of a reserve whose first attempt was killed, given the retry's completion c
  and what the killed attempt told (killed-attempt):
  - the killed attempt reserved: the op is :ok with that reservation, whatever the retry said.
    The retry's answer is kept as :retry-type/:retry-error; a retry that was refused
    (:retry-error [:outcome ...]) under a key that holds a reservation is what the keys checker
    reports, a retry that merely failed (a definite error, no answer) is not a contradiction;
  - the killed attempt's outcome is unknown and the retry did not reserve: :info, since the
    retry's refusal or definite error is about the retry alone and the killed attempt may still
    be applied;
  - otherwise the retry's completion."
  [c killed]
  (let [c (assoc-in c [:value :restarted?] true)]
    (cond
      (map? killed)
      (if (= :ok (:type c))
        (assoc-in c [:value :first-reservation-id] (:granted killed))
        (-> c
            (dissoc :error)
            (assoc :type :ok)
            (update :value merge {:reservation-id (:granted killed) :first-reservation-id (:granted killed)
                                  :expires-at-ms (:expires-at-ms killed) :config-version (:config-version killed)
                                  :retry-type (:type c) :retry-error (:error c)})))

      (and (= :unknown killed) (not= :ok (:type c)))
      (assoc c :type :info :error [:killed-attempt-unknown (:error c)])

      :else c)))

(defn- reserve-with-kill!
  "A reserve whose client is killed mid-call when prepare-op chose so (probability
  :kill-fraction: the call started, the client closed :kill-after-ms 0-20 ms later) and retried
  by a new client with the same idempotency key and the op's request id: under the new client
  id that is a new transport key, as a restarted process's request is. A resend after an :info
  also goes through a new client; a resend of a definite answer keeps the client and the request
  id, so it is the very transport key of the answer it resends (the checker compares the answers
  of one request id, so the retry must not use some other id of the new client's). The
  completion is the retry's answer, or the killed attempt's reservation when that arrived
  (killed-completion)."
  [conn-box state test opts t op]
  (let [v (:value op)
        kill? (and (:kill-after-ms v) (not (:resend? v)))
        ;; Only a resend after an unknown outcome restarts: a reserve that was refused is not
        ;; kept under its key, so resending it from a new client could rightly decide afresh.
        restart? (or kill? (:after-info? v))]
    (if-not restart?
      (reserve-completion op (quota-call @conn-box opts (second (:req-id v)) (reserve-request v)))
      (let [killed (when kill?
                    (let [f (.call (RawClient/of @conn-box) (long (second (:req-id v)))
                                   (Request$Quota. (reserve-request v))
                                   (Duration/ofMillis (:request-deadline-ms opts)))]
                      (Thread/sleep (long (:kill-after-ms v)))
                      (killed-attempt f)))]
        (restart! conn-box state test opts t)
        (let [c (try (reserve-completion op (quota-call @conn-box opts (second (:req-id v)) (reserve-request v)))
                     (catch Throwable e (client/error-completion op e)))]
          (if kill?
            (killed-completion c killed)
            (assoc-in c [:value :restarted?] true)))))))

(defrecord ReservationClient [opts state ^RationClient conn]
  client/Client
  (open! [this test _node]
    (let [t (:thread this)
          addrs (db/client-addresses (:db test) test)
          c (client/open-ration-client addrs t opts (:seed test 0) (+ 2000 t))]
      (assoc this :conn c :conn-box (atom c)
             :state (atom {:cid t
                           :next-req (inc (bit-shift-left 1 40)) ; far from the client's own counter
                           :opts opts :outstanding [] :seen #{}}))))

  (setup! [_ _]
    ;; version 0: unconditional (a retry after an unknown outcome just sets it again); the
    ;; ledger stamps the change time, so the proposal carries 0.
    (doseq [[scope resource kind limit] (:catalog opts)]
      (let [req (QuotaRequest$SetQuota.
                 (QuotaSpec. scope resource (kinds kind) Window/NONE (long limit) "units"
                             0 Overage/REJECT 0 0 0 "jepsen" 0 "jepsen setup"))]
        (when-not (u/await-fn #(let [^QuotaResponse$QuotaSetReply r (quota-call conn opts nil req)]
                                 (if (= Outcome/SUCCESS (.outcome r))
                                   true
                                   (throw (ex-info (str "SetQuota " scope " " resource ": " (.outcome r) " " (.message r)) {}))))
                              60000 500)
          (throw (ex-info (str "could not set quota " scope " " resource " within 60 s") {:scope scope}))))))

  (invoke! [this test op]
    (client/with-errors op
      (let [v (:value op)
            rid (second (:req-id v))
            conn-box (:conn-box this)
            conn @conn-box
            c (case (:f op)
                :reserve (reserve-with-kill! conn-box state test opts (:thread this) op)
                :complete (settle-completion
                           op (quota-call conn opts rid (QuotaRequest$CompleteReservation.
                                                         (long (:reservation-id v)) (mapv long (:actuals v)))))
                :cancel (settle-completion
                         op (quota-call conn opts rid (QuotaRequest$CancelReservation. (long (:reservation-id v)))))
                :read (let [^QuotaResponse$QuotaList l (quota-call conn opts nil (QuotaRequest$ListQuotas. (:org v) false))]
                        (assoc op :type :ok :value (assoc v :levels (mapv quota-info->map (.quotas l)))))
                :usage-log (assoc op :type :ok :value (merge v (read-usage-log conn opts))))]
        (swap! state apply-completion c)
        c)))

  (teardown! [_ _])
  (close! [this _] (when-let [b (:conn-box this)] (.close ^RationClient @b)))

  client/Reusable
  (reusable? [_ _] true)

  client/Prepare
  (prepare [_ _ op]
    (if (= :usage-log (:f op))
      (assoc op :value {})
      (let [[s' op'] (prepare-op @state op (:time op))]
        (reset! state s')
        op'))))

(defn client [opts] (map->ReservationClient {:opts opts}))

(defn generator
  "Intents, weighted: mostly reservations and settlements, some reads and resends."
  []
  (gen/mix (map gen/repeat (concat (repeat 4 {:f :reserve}) (repeat 2 {:f :complete})
                                   [{:f :cancel} {:f :read} {:f :resend}]))))

(defn workload
  "{:name :opts :client :generator :final-generator}."
  [opts]
  (let [opts (merge defaults opts)]
    {:name "reservation"
     :opts opts
     :client (client opts)
     :generator (generator)
     ;; Three rounds of reads (a cold node may eat the first deadline), then the usage log,
     ;; three times on any thread (the checker uses the last complete one).
     :final-generator [(gen/each-thread-once {:f :read})
                       (gen/each-thread-once {:f :read})
                       (gen/each-thread-once {:f :read})
                       (gen/once {:f :usage-log})
                       (gen/once {:f :usage-log})
                       (gen/once {:f :usage-log})]}))
