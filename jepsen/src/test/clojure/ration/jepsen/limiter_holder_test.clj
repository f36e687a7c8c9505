(ns ration.jepsen.limiter-holder-test
  "The lease workload's real path without a network: dev.ration.client.limiter.RateLimiter, on a
  ManualScheduler (its clock is the history's clock), over the workload's recording transport
  and a simulated ledger that grants one holder 50/s and 25 of t1's R = 100, B = 50 for 3 s.
  The recorded history (the limiter's acquires, renewals and returns + the admissions) passes
  the lease checker. A holder whose transport tells its limiter the lease lasts 3× longer than
  the ledger granted (the ledger's answer is what is recorded) keeps admitting after the lease
  ended, and the checker reports it. A best-effort holder cut off from the ledger for 4 s spends
  its emergency budget E once after local expiry (recorded :emergency?), and the history passes
  the checker's best-effort bound."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.lease :as lease])
  (:import (java.time Duration)
           (dev.ration.client.limiter Decision$Reason ManualScheduler RateLimiter)
           (dev.ration.client.limiter.internal LeaseTransport LimiterViews Limiters)
           (dev.ration.wire Mode Outcome)
           (dev.ration.wire.lease LeaseView)
           (dev.ration.protocol Request$AcquireLease Request$RenewLease Request$ReturnLease
                                       Response$LeaseReply Response$ReturnReply)
           (java.util.concurrent CompletableFuture)
           (java.util.function Function)))

(def opts (assoc lease/defaults :tenants {"t1" {:rate 100 :burst 50}}))

(defn- lease-info [id version ttl-ms]
  (LeaseView. id "t1" lease/resource "h0" 1 version 50 25 50 25 0 0 0 Mode/HARD 0 ttl-ms))

(defn- ledger
  "A correct ledger for one holder: fresh ids, versions up by one per renewal, 3 s leases."
  []
  (let [ids (atom 0)]
    (fn [_req-id request]
      (CompletableFuture/completedFuture
       (condp instance? request
         Request$AcquireLease (Response$LeaseReply. Outcome/SUCCESS "" 0 0 (lease-info (swap! ids inc) 1 3000) 0)
         Request$RenewLease (let [^Request$RenewLease r request]
                              (Response$LeaseReply. Outcome/SUCCESS "" 0 0
                                                    (lease-info (.leaseId r) (inc (.presentedVersion r)) 3000) 0))
         Request$ReturnLease (let [^Request$ReturnLease r request]
                               (Response$ReturnReply. Outcome/SUCCESS "" (.leaseId r) (.unusedBalance r) false)))))))

(defn- stretched
  "A transport that passes calls on but tells the limiter every lease lasts factor× longer."
  [^LeaseTransport t factor]
  (let [stretch (reify Function
                  (apply [_ reply]
                    (let [^Response$LeaseReply r reply, l (.lease r)]
                      (Response$LeaseReply. (.outcome r) (.message r) (.retryAfterMillis r) (.currentVersion r)
                                            (LeaseView. (.leaseId l) (.tenant l) (.resource l) (.holder l) (.epoch l)
                                                        (.version l) (.rateShare l) (.burstShare l) (.countedRate l)
                                                        (.countedBurst l) (.grantedAtMillis l) (.expiresAtMillis l)
                                                        (.countedUntilMillis l) (.mode l) (.emergency l)
                                                        (* factor (.leaseDurationMillis l)))
                                            (.startBalance r)))))]
    (reify LeaseTransport
      (nextRequestId [_] (.nextRequestId t))
      (acquire [_ id a b c d e] (.thenApply (.acquire t id a b c d e) stretch))
      (renew [_ id a b c d e f g] (.thenApply (.renew t id a b c d e f g) stretch))
      (returnLease [_ id a b c] (.returnLease t id a b c)))))

(defn simulate
  "One holder admitting 5 every 10 ms for 10 s, renewing at 85 % of the lease it believes in,
  then closing (the return is recorded). Returns the history."
  [stretch]
  (let [sched (ManualScheduler.)
        out (atom [])
        record! (fn [op] (swap! out conj (assoc op :time (.toNanos (.now sched)))))
        procs (atom 1000000)
        state (atom {})
        rec (lease/recording-transport {:send! (ledger) :next-id! (let [n (atom 0)] #(swap! n inc))
                                        :record! record! :next-process! #(swap! procs inc)
                                        :state state :tenant "t1" :cid 0 :timeout-ms 3000})
        transport (if (= 1 stretch) rec (stretched rec stretch))
        ^RateLimiter l (Limiters/create transport sched "t1" lease/resource "h0"
                                           (-> (lease/limiter-options opts "t1") (.manual sched) (.renewFraction 0.85) (.build)))]
    (dotimes [_ 1000]
      (.advance sched (Duration/ofNanos 10000000))
      (let [before (some-> (.lease l) (.orElse nil) (.leaseId))
            d (.decide l 5)
            after (some-> (.lease l) (.orElse nil) (.leaseId))
            v {:tenant "t1" :n (if (.allowed d) 5 0) :lease-id (or after before)
               :lease-ids (vec (distinct (remove nil? [before after])))}]
        (record! {:type :invoke :process 0 :f :admit :value {:tenant "t1" :n 5}})
        (record! {:type :ok :process 0 :f :admit :value v})))
    (.closeAsync l)
    (h/index @out)))

(deftest the-honest-limiter-passes
  (let [hist (simulate 1)
        r (c/check (c/lease-checker) {} hist opts)]
    (is (true? (:valid? r)) (pr-str (dissoc r :stats)))
    (is (<= 3 (count (filter #(and (= :renew (:f %)) (h/ok? %)) hist))) "renewed in the background")
    (is (some #(and (= :release (:f %)) (h/ok? %)) hist) "close returned the lease")
    (is (< 300 (get-in r [:admissions :tenants "t1" :admitted])))))

(deftest a-limiter-that-believes-its-lease-lasts-longer-is-caught
  (let [r (c/check (c/lease-checker) {} (simulate 3) opts)]
    (is (false? (:valid? r)))
    (is (some #(= :admit-outside-lease (:kind %)) (get-in r [:lifecycle :errors])) (pr-str (:lifecycle r)))))

;; ------------------------------------------------------------------ best-effort: emergency budget

(def be-opts (assoc lease/defaults :tenants {"t1" {:rate 100 :burst 50 :mode :best-effort :emergency 15}}))

(defn- be-ledger
  "A correct best-effort ledger (mode code 1, E = 15) that is unreachable (every call fails)
  while (down?) is true. Versions are minted from one counter, as the real ledger's are (a
  limiter applies only answers with a newer (epoch, version))."
  [down?]
  (let [ids (atom 0), versions (atom 0)
        info (fn [id version] (LeaseView. id "t1" lease/resource "h0" 1 version 50 25 50 25 0 0 0 Mode/BEST_EFFORT 15 3000))]
    (fn [_req-id request]
      (if (down?)
        (CompletableFuture/failedFuture (java.io.IOException. "partitioned"))
        (CompletableFuture/completedFuture
         (condp instance? request
           Request$AcquireLease (Response$LeaseReply. Outcome/SUCCESS "" 0 0 (info (swap! ids inc) (swap! versions inc)) 0)
           Request$RenewLease (let [^Request$RenewLease r request]
                                (Response$LeaseReply. Outcome/SUCCESS "" 0 0 (info (.leaseId r) (swap! versions inc)) 0))
           Request$ReturnLease (let [^Request$ReturnLease r request]
                                 (Response$ReturnReply. Outcome/SUCCESS "" (.leaseId r) (.unusedBalance r) false))))))))

(defn simulate-partition
  "One best-effort holder admitting 5 every 10 ms for 12 s; the ledger is unreachable from 3 s
  to 7 s. Returns the history."
  []
  (let [sched (ManualScheduler.)
        out (atom [])
        record! (fn [op] (swap! out conj (assoc op :time (.toNanos (.now sched)))))
        procs (atom 1000000)
        down? #(< 3000000000 (.toNanos (.now sched)) 7000000000)
        rec (lease/recording-transport {:send! (be-ledger down?) :next-id! (let [n (atom 0)] #(swap! n inc))
                                        :record! record! :next-process! #(swap! procs inc)
                                        :state (atom {}) :tenant "t1" :cid 0 :timeout-ms 3000})
        ^RateLimiter l (Limiters/create rec sched "t1" lease/resource "h0"
                                           (-> (lease/limiter-options be-opts "t1") (.manual sched) (.build)))]
    (dotimes [_ 1200]
      (.advance sched (Duration/ofNanos 10000000))
      (let [before (some-> (.lease l) (.orElse nil) (.leaseId))
            d (.decide l 5)
            after (some-> (.lease l) (.orElse nil) (.leaseId))
            v {:tenant "t1" :n (if (.allowed d) 5 0) :holder 0 :lease-id (or after before)
               :emergency? (= Decision$Reason/ADMITTED_EMERGENCY (.reason d))
               :lease-ids (vec (distinct (remove nil? [before after])))}]
        (record! {:type :invoke :process 0 :f :admit :value {:tenant "t1" :n 5 :holder 0}})
        (record! {:type :ok :process 0 :f :admit :value v})))
    ;; The manual clock stands still between steps: close 1 ms after the last admission (the
    ;; checker orders an admission at the instant of the release invocation as after it).
    (.advance sched (Duration/ofNanos 1000000))
    (.closeAsync l)
    (h/index @out)))

(deftest a-cut-off-best-effort-limiter-spends-e-once-and-passes
  (let [hist (simulate-partition)
        r (c/check (c/lease-checker) {} hist be-opts)
        t1 (get-in r [:admissions :tenants "t1"])]
    (is (true? (:valid? r)) (pr-str (dissoc r :stats)))
    (is (= [:best-effort 15 1] ((juxt :mode :E :H) t1)))
    (is (= 15 (:emergency-admitted t1)) "E once for the one disconnection, no more")
    (is (< 100 (->> hist (filter #(and (h/ok? %) (= :admit (:f %)) (> (:time %) 7000000000)
                                      (not (get-in % [:value :emergency?]))))
                    (map #(get-in % [:value :n])) (reduce +)))
        "admitting from a new lease after the ledger is back")
    (testing "the same history under a hard limit fails"
      (is (false? (get-in (c/check (c/lease-checker) {} hist opts) [:admissions :valid?]))))))

(deftest typed-and-wire-leases-make-the-same-map
  ;; A lease read through the typed API (listLeases: LeaseInfo) and one from a wire reply
  ;; (LeaseView) land in the same history map, ledger times and the lease duration in ms.
  (let [v (LeaseView. 7 "t1" lease/resource "h0" 2 3 50 25 60 30 1000 4000 5000 Mode/HARD 0 3000)
        m (lease/lease-view->map v)]
    (is (= m (lease/lease-info->map (LimiterViews/lease v))))
    (is (= [1000 4000 5000 3000 60] (map m [:granted-at-ms :expires-at-ms :counted-until-ms :ttl-ms :counted-rate])))))
