(ns ration.jepsen.checker-test
  "Each checker on a passing synthetic history and on a known violation."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.history :as h]))

(def opts {:tenants {"t1" {:rate 100 :burst 50}} :epsilon 0.1})

(defn ms [x] (long (* x 1000000)))

(defn hist
  "Ops as [process type f value time-ms]; indexes stamped in order."
  [& ops]
  (h/index (for [[p t f v tm] ops] {:process p :type t :f f :value v :time (ms tm)})))

(defn acquire [p id rate burst t0 t1 & {:keys [req type] :or {type :ok}}]
  (let [req (or req [p id])]
    [[p :invoke :acquire {:tenant "t1" :req-id req} t0]
     [p type :acquire (cond-> {:tenant "t1" :req-id req}
                        (= :ok type) (assoc :lease-id id :version 1 :rate rate :burst burst :ttl-ms 3000)) t1]]))

(defn check [checker history] (c/check checker {} history opts))

(deftest conservation-pass-and-violation
  (testing "60 + 40 of R = 100 at once is fine"
    (is (true? (:valid? (check (c/conservation)
                               (apply hist (concat (acquire 0 1 60 30 0 10) (acquire 1 2 40 20 5 20))))))))
  (testing "a lease's share is free again after invocation + ttl·(1−ε)"
    (is (true? (:valid? (check (c/conservation)
                               (apply hist (concat (acquire 0 1 60 30 0 10) (acquire 1 2 60 30 2800 2810))))))))
  (testing "60 + 60 > R = 100 while both are usable"
    (let [r (check (c/conservation) (apply hist (concat (acquire 0 1 60 30 0 10) (acquire 1 2 60 30 1000 1010))))]
      (is (false? (:valid? r)))
      (is (= 1 (get-in r [:tenants "t1" :violation-count])))))
  (testing "an :info acquire is unknown, not a violation"
    (let [r (check (c/conservation) (apply hist (concat (acquire 0 1 60 30 0 10) (acquire 1 2 60 30 5 2000 :type :info))))]
      (is (true? (:valid? r)))
      (is (= 1 (:indeterminate-acquires r))))))

(deftest admissions-pass-and-violation
  (let [admit (fn [p n t] [[p :invoke :admit {:tenant "t1" :lease-id 1 :n n} t]
                           [p :ok :admit {:tenant "t1" :lease-id 1 :n n} t]])]
    (is (true? (:valid? (check (c/admissions) (apply hist (mapcat #(admit 0 10 (* 200 %)) (range 20)))))))
    (is (false? (:valid? (check (c/admissions) (apply hist (concat (admit 0 30 0) (admit 1 30 1))))))
        "60 tokens within 1 ms exceed B = 50")))

(deftest lifecycle-pass-and-violations
  (let [base (acquire 0 1 60 30 0 10)
        admit (fn [n t] [[0 :invoke :admit {:tenant "t1" :lease-id 1 :n 5} t] [0 :ok :admit {:tenant "t1" :lease-id 1 :n n} t]])
        release [[0 :invoke :release {:tenant "t1" :lease-id 1 :req-id [0 9] :unused 0} 500]
                 [0 :ok :release {:tenant "t1" :lease-id 1 :req-id [0 9]} 510]]]
    (is (true? (:valid? (check (c/lifecycle) (apply hist (concat base (admit 5 100) release (admit 0 600)))))))
    (testing "spending a returned share"
      (is (false? (:valid? (check (c/lifecycle) (apply hist (concat base release (admit 5 600))))))))
    (testing "admitting after the lease expired (ttl 3 s, ε 0.1: usable until 2.7 s)"
      (is (false? (:valid? (check (c/lifecycle) (apply hist (concat base (admit 5 2800))))))))
    (testing "renewing a returned lease"
      (is (false? (:valid? (check (c/lifecycle)
                                  (apply hist (concat base release
                                                      [[0 :invoke :renew {:tenant "t1" :lease-id 1 :req-id [0 10]} 700]
                                                       [0 :ok :renew {:tenant "t1" :lease-id 1 :req-id [0 10] :version 2 :rate 60 :burst 30 :ttl-ms 3000} 710]])))))))))

(deftest unique-leases-pass-and-violation
  (testing "a resend of the same request id may return the same lease"
    (is (true? (:valid? (check (c/unique-leases)
                               (apply hist (concat (acquire 0 1 60 30 0 10) (acquire 0 1 60 30 20 30 :req [0 1]))))))))
  (testing "two request ids granted the same lease id"
    (is (false? (:valid? (check (c/unique-leases)
                                (apply hist (concat (acquire 0 1 60 30 0 10) (acquire 1 1 40 20 20 30)))))))))

(deftest reads-pass-and-violation
  (let [rd (fn [limit leases] [[0 :invoke :ledger-read {:tenant "t1"} 0]
                               [0 :ok :ledger-read {:tenant "t1" :limit limit :leases leases} 1]])
        good {:rate 100 :burst 50 :counted-rate 60 :counted-burst 30 :granted-rate 60 :granted-burst 30 :pool 10}]
    (is (true? (:valid? (check (c/reads) (apply hist (rd good [{:lease-id 1 :rate 60 :burst 30 :counted-rate 60 :counted-burst 30}]))))))
    (is (false? (:valid? (check (c/reads) (apply hist (rd (assoc good :counted-rate 120) []))))))
    (is (false? (:valid? (check (c/reads) (apply hist (rd (assoc good :pool -1) []))))))
    (is (false? (:valid? (check (c/reads) (apply hist (rd (assoc good :pool 30) []))))) "pool + counted burst > B")))

(deftest merge-valid-order
  (is (false? (c/merge-valid [true :unknown false])))
  (is (= :unknown (c/merge-valid [true :unknown])))
  (is (true? (c/merge-valid [true true]))))

(deftest stats-reports-liveness
  (let [r (check (c/stats) (apply hist (concat [[:nemesis :info :start-partition nil 0] [:nemesis :info :start-partition nil 1]
                                                [:nemesis :info :stop-partition nil 100] [:nemesis :info :stop-partition nil 101]]
                                               (acquire 0 1 60 30 200 300))))]
    (is (true? (:valid? r)))
    (is (< 0.19 (:seconds-to-first-ok-after-heal r) 0.21))))

(deftest stats-fails-when-nothing-succeeds-after-the-final-heal
  (testing "ops succeeded before the heal, none after it (the recovery wait is not the heal)"
    (let [r (check (c/stats) (apply hist (concat (acquire 0 1 60 30 0 10)
                                                 [[:nemesis :info :kill :all 20] [:nemesis :info :start nil 30]
                                                  [:nemesis :info :await-recovery {:recovered? true :seconds 8.5} 40]]
                                                 (acquire 1 2 60 30 50 60 :type :fail))))]
      (is (false? (:valid? r)))
      (is (= 8.5 (get-in r [:recovery :seconds])))
      (is (< 0.029 (:final-heal-time-s r) 0.031))))
  (testing "an ok after the recovery wait counts from the heal"
    (let [r (check (c/stats) (apply hist (concat [[:nemesis :info :start nil 30]
                                                  [:nemesis :info :await-recovery {:recovered? true :seconds 1.0} 40]]
                                                 (acquire 1 2 60 30 50 60))))]
      (is (true? (:valid? r)))
      (is (< 0.029 (:seconds-to-first-ok-after-heal r) 0.031)))))

(deftest ledger-clock-reports-the-rate-per-stretch
  (let [grant (fn [i t-ms ledger-ms]
                [[0 :invoke :renew {:tenant "t1" :req-id [0 i]} t-ms]
                 [0 :ok :renew {:tenant "t1" :req-id [0 i] :lease-id 1 :ttl-ms 3000 :expires-at-ms (+ ledger-ms 3000)} t-ms]])
        ;; real rate for 5 s, then a nemesis op says n2 leads, then the ledger runs 2× for 5 s
        before (mapcat #(grant % (* 100 %) (+ 1000000 (* 100 %))) (range 50))
        nemesis [[:nemesis :info :rate {:targets :primaries :rate 2.0} 5000]
                 [:nemesis :info :rate {:rate 2.0 :leader [:n2]} 5000]]
        after (mapcat #(grant % (+ 5000 (* 100 (- % 50))) (+ 1005000 (* 200 (- % 50)))) (range 50 100))
        r (check (c/ledger-clock) (apply hist (concat before nemesis after)))]
    (is (true? (:valid? r)))
    (is (= [1.0 2.0] (map :rate (:windows r))) (pr-str r))
    (is (= [nil [:n2]] (map :leader (:windows r))))))

;; ------------------------------------------------------------------ best-effort (emergency) admissions

(def be-opts
  "The same limit twice: t1 hard, t4 best-effort with E = 20."
  {:tenants {"t1" {:rate 100 :burst 50} "t4" {:rate 100 :burst 50 :mode :best-effort :emergency 20}} :epsilon 0.1})

(defn eadmit
  "An :ok admit of n by holder p (process p), at t ms, :emergency? e, of tenant."
  [tenant p n t e]
  [[p :invoke :admit {:tenant tenant :n n :holder p} t]
   [p :ok :admit (cond-> {:tenant tenant :n n :holder p :emergency? e :reason (if e :admitted_emergency :admitted)}
                   (not e) (assoc :lease-id 1)) t]])

(defn within-bound
  "Holder 0 fills B, then holders 0 and 1 each spend their whole E 1 ms later: W = 89.9 ≤ B + E·2 = 90."
  [tenant]
  (concat (eadmit tenant 0 50 0 false) (eadmit tenant 0 20 1 true) (eadmit tenant 1 20 1 true)))

(defn lease-1
  "Holder 0's lease 1 of tenant, granted at -5 ms (its ordinary admissions come from it)."
  [tenant]
  [[100 :invoke :acquire {:tenant tenant :req-id [0 1]} -10]
   [100 :ok :acquire {:tenant tenant :req-id [0 1] :lease-id 1 :version 1 :rate 50 :burst 25 :ttl-ms 3000} -5]])

(deftest best-effort-admissions-within-b-plus-sum-e-pass
  (let [r (c/check (c/admissions) {} (apply hist (within-bound "t4")) be-opts)
        t4 (get-in r [:tenants "t4"])]
    (is (true? (:valid? r)) (pr-str r))
    (is (= [:best-effort "B + R·L_max + E·H" 20 2] ((juxt :mode :formula :E :H) t4)))
    (is (== 90 (:bound t4)))
    (is (= [2 40] ((juxt :emergency-admits :emergency-admitted) t4)))
    (is (< 89.8 (:max-w t4) 89.95)))
  (testing "the emergency admissions are outside any lease: exempt from :lifecycle for a best-effort tenant"
    (is (true? (:valid? (c/check (c/lifecycle) {} (apply hist (concat (lease-1 "t4") (within-bound "t4"))) be-opts)))))
  (testing ":stats reports them"
    (let [r (c/check (c/stats) {} (apply hist (within-bound "t4")) be-opts)]
      (is (= [2 40] ((juxt :emergency-admits :emergency-admitted) r)))
      (is (= {:admitted 1 :admitted_emergency 2} (:admit-reasons r))))))

(deftest best-effort-admissions-over-b-plus-sum-e-fail
  (testing "10 more ordinary tokens at the same instant: W = 99.9 > 90"
    (let [r (c/check (c/admissions) {} (apply hist (concat (within-bound "t4") (eadmit "t4" 1 10 1 false))) be-opts)]
      (is (false? (:valid? r)))
      (is (= 1 (get-in r [:tenants "t4" :violation-count])))
      (is (empty? (get-in r [:tenants "t4" :emergency-over-E])) "each holder spent exactly E")))
  (testing "one holder spending more than E in one disconnection (W stays under the bound)"
    (let [h (apply hist (concat (eadmit "t4" 0 15 0 true) (eadmit "t4" 0 15 1000 true)))
          r (c/check (c/admissions) {} h be-opts)]
      (is (false? (:valid? r)))
      (is (zero? (get-in r [:tenants "t4" :violation-count])))
      (is (= [{:holder 0 :spent 30 :E 20}]
             (map #(select-keys % [:holder :spent :E]) (get-in r [:tenants "t4" :emergency-over-E]))))))
  (testing "a lease granted to the holder in between: a new disconnection, a fresh E"
    (let [grant [[100 :invoke :acquire {:tenant "t4" :req-id [0 7]} 400]
                 [100 :ok :acquire {:tenant "t4" :req-id [0 7] :lease-id 2 :version 1 :rate 50 :burst 25 :ttl-ms 3000} 500]]
          h (apply hist (concat (eadmit "t4" 0 15 0 true) grant (eadmit "t4" 0 15 1000 true)))]
      (is (true? (:valid? (c/check (c/admissions) {} h be-opts)))))))

(deftest hard-tenant-with-the-same-emergency-admissions-fails
  (let [r (c/check (c/admissions) {} (apply hist (within-bound "t1")) be-opts)
        t1 (get-in r [:tenants "t1"])]
    (is (false? (:valid? r)))
    (is (= [:hard "B + R·L_max"] ((juxt :mode :formula) t1)))
    (is (== 50 (:bound t1)))
    (is (= 2 (:violation-count t1)) "W = 69.9 and 89.9 > B = 50")
    (is (= 2 (count (:emergency-in-hard-mode t1)))))
  (testing "and :lifecycle does not exempt them"
    (let [r (c/check (c/lifecycle) {} (apply hist (concat (lease-1 "t1") (within-bound "t1"))) be-opts)]
      (is (false? (:valid? r)))
      (is (= 2 (count (filter #(= :admit-outside-lease (:kind %)) (:errors r))))))))

(def slot-opts {:tenants {"t1" {:rate 0 :burst 0 :concurrency 10}} :epsilon 0.1})

(defn slot-acquire [p id slots t0 t1]
  [[p :invoke :acquire {:tenant "t1" :req-id [p id]} t0]
   [p :ok :acquire {:tenant "t1" :req-id [p id] :lease-id id :version 1 :rate 0 :burst 0
                    :slots slots :ttl-ms 3000} t1]])

(defn slot-renew [p id n slots release t0 t1]
  [[p :invoke :renew {:tenant "t1" :req-id [p id n] :lease-id id :release release} t0]
   [p :ok :renew {:tenant "t1" :req-id [p id n] :lease-id id :version (+ 1 n) :rate 0 :burst 0
                  :slots slots :ttl-ms 3000} t1]])

(deftest slot-conservation-pass-and-violation
  (let [check (fn [history] (c/check (c/conservation) {} history slot-opts))]
    (testing "6 + 4 of C = 10 at once is fine"
      (let [r (check (apply hist (concat (slot-acquire 0 1 6 0 10) (slot-acquire 1 2 4 5 20))))]
        (is (true? (:valid? r)))
        (is (= 10 (get-in r [:tenants "t1" :slots :max-seen :slots])))))
    (testing "6 + 6 > C = 10 while both are usable: the checker bites"
      (let [r (check (apply hist (concat (slot-acquire 0 1 6 0 10) (slot-acquire 1 2 6 500 510))))]
        (is (false? (:valid? r)))
        (is (= 1 (get-in r [:tenants "t1" :slots :violation-count])))))
    (testing "a release promise frees the slots above it from the renewal's invocation"
      ;; Lease 1 promises at most 1 job from 100 ms; the ledger frees 5 slots and lease 2 gets
      ;; them at 120 ms, before lease 1's renewal answer (130 ms) arrives.
      (is (true? (:valid? (check (apply hist (concat (slot-acquire 0 1 6 0 10)
                                                     (slot-acquire 1 2 4 5 20)
                                                     [[0 :invoke :renew {:tenant "t1" :req-id [0 1 1] :lease-id 1 :release 1} 100]]
                                                     (slot-renew 1 2 1 9 -1 110 120)
                                                     [[0 :ok :renew {:tenant "t1" :req-id [0 1 1] :lease-id 1 :version 2 :rate 0 :burst 0 :slots 1 :ttl-ms 3000} 130]])))))))
    (testing "without the promise the same grant is a violation"
      (is (false? (:valid? (check (apply hist (concat (slot-acquire 0 1 6 0 10)
                                                      (slot-acquire 1 2 4 5 20)
                                                      (slot-renew 1 2 1 9 -1 110 120))))))))))

(deftest members-pass-and-violation
  (let [test {:nodes [:n1 :n2 :n3]}
        end (fn [recovery] (hist [:nemesis :info :add-node :all 1]
                                 [:nemesis :info :await-recovery recovery 2]))]
    (testing "every node ready and a voter in the leader's configuration"
      (is (true? (:valid? (c/check (c/members) test
                                   (end {:recovered? true :ready [:n1 :n2 :n3] :leader [:n1]
                                         :voters ["n1" "n2" "n3"] :listeners []})
                                   opts)))))
    (testing "an added node whose Raft shut down after its add reported success"
      (let [r (c/check (c/members) test
                       (end {:recovered? false :ready [:n1 :n2] :leader [:n1]
                             :voters ["n1" "n2" "n3"] :listeners []})
                       opts)]
        (is (false? (:valid? r)))
        (is (= ["n3"] (:not-ready r)))))
    (testing "an added node left a listener"
      (let [r (c/check (c/members) test
                       (end {:recovered? false :ready [:n1 :n2 :n3] :leader [:n1]
                             :voters ["n1" "n2"] :listeners ["n3"]})
                       opts)]
        (is (false? (:valid? r)))
        (is (= ["n3"] (:not-voters r)))))
    (testing "no record of the end state is not a pass"
      (is (false? (:valid? (c/check (c/members) test (hist [:nemesis :info :add-node :all 1]) opts)))))))
