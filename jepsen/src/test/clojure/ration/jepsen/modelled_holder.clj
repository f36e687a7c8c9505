(ns ration.jepsen.modelled-holder
  "Test-only: the holder the lease workload used before the regional limiter existed, modelled
  in pure functions (prepare-op / apply-completion over a holder map), so that tests can
  substitute misbehaving holders (admit after expiry, refill on renewal, spend a returned share)
  and show the lease checker reports them (misbehaving_holder_test). The real workload admits
  through dev.ration.client.limiter.RateLimiter (workload/lease.clj).

  The honest model: a lease's bucket starts at the granted startBalance when the acquire
  completes and refills at the rate share, capped at the burst share; renewal never refills it
  (it is brought up to date and truncated to the new burst share); the holder may admit only
  before first-invocation(acquire|renew) + ttl·(1−ε), measured from when it FIRST sent that
  request id; returning invalidates the bucket first, then sends RETURN_LEASE."
  (:require [ration.jepsen.generator :as gen]))

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

;; ------------------------------------------------------------------ the holder's decisions (pure)

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
