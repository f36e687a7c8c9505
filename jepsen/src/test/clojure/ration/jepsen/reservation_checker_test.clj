(ns ration.jepsen.reservation-checker-test
  "The reservation checkers (limits, reads, decisions, usage events) on synthetic histories:
  one passing history and one violation per rule; plus the workload's op preparation."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.checker.reservation :as rc]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.reservation :as rw]))

(def opts {:epsilon 0.1
           :catalog [["o" "jobs" :concurrent 5]
                     ["o/t" "jobs" :concurrent 3]
                     ["o/t/p" "jobs" :concurrent 2]
                     ["o" "disk" :allocation 10]]})

(defn ms [x] (long (* x 1000000)))

(defn hist
  "Ops as [process type f value time-ms & {extra}]; indexes stamped in order."
  [& ops]
  (h/index (for [[p t f v tm extra] ops] (merge {:process p :type t :f f :value v :time (ms tm)} extra))))

(defn reserve
  "A reserve of items ([resource amount] ...) at scope; rid nil for a refusal or :info."
  [p req rid scope items t0 t1 & {:keys [type ttl resend] :or {type :ok ttl 3000}}]
  (let [v (cond-> {:scope scope :items (mapv (fn [[r a]] {:resource r :amount a}) items) :ttl-ms ttl :req-id [p req]}
            resend (assoc :resend? true))]
    [[p :invoke :reserve v t0]
     (case type
       :ok [p :ok :reserve (assoc v :reservation-id rid :expires-at-ms 99999 :config-version 1) t1]
       :refused [p :fail :reserve (assoc v :level-scope scope :refused-resource "jobs") t1 {:error [:outcome :limit_exhausted]}]
       :info [p :info :reserve v t1 {:error [:timeout "client timeout"]}])]))

(defn settle
  "A complete (actuals) or cancel of rid, answered how/quantities."
  [p f req rid t0 t1 & {:keys [actuals how quantities already seqs type] :or {type :ok seqs []}}]
  (let [v (cond-> {:reservation-id rid :req-id [p req]} actuals (assoc :actuals actuals))]
    [[p :invoke f v t0]
     (case type
       :ok [p :ok f (assoc v :how how :quantities quantities :event-seqs seqs :already-settled? (boolean already)) t1]
       :unknown [p :fail f v t1 {:error [:outcome :reservation_unknown]}]
       :info [p :info f v t1 {:error [:timeout "client timeout"]}])]))

(defn rd [p t0 t1 & levels]
  [[p :invoke :read {:org "o"} t0]
   [p :ok :read {:org "o" :levels (vec (for [[scope resource held allocated] levels
                                              :let [[kind limit] ({["o" "jobs"] [:concurrent 5] ["o/t" "jobs"] [:concurrent 3]
                                                                   ["o/t/p" "jobs"] [:concurrent 2] ["o" "disk"] [:allocation 10]}
                                                                  [scope resource])]]
                                          {:scope scope :resource resource :kind kind :limit limit
                                           :held held :allocated (or allocated 0)}))} t1]])

(defn ulog [p t & events]
  [[p :invoke :usage-log {} t]
   [p :ok :usage-log {:events (vec (for [[s rid resource type q] events]
                                     {:seq s :event-id (str "res:" rid ":" resource) :type type :scope "o"
                                      :resource resource :quantity q :reservation-id rid}))
                      :last-seq (count events)} (inc t)]])

(defn check [checker & ops] (c/check checker {} (apply hist (apply concat ops)) opts))

(def good
  "Two reservations at o/t/p (limit 2) one after the other, a resend, a refusal while full, a
  disk reservation completed with 3 of 4, reads in between, and the usage log."
  [(reserve 0 1 1 "o/t/p" [["jobs" 2]] 0 10)
   (reserve 1 1 nil "o/t/p" [["jobs" 1]] 20 30 :type :refused)
   (rd 2 40 50 ["o" "jobs" 2] ["o/t" "jobs" 2] ["o/t/p" "jobs" 2] ["o" "disk" 0])
   (reserve 0 1 1 "o/t/p" [["jobs" 2]] 60 70 :resend true)              ; same answer again
   (settle 0 :cancel 2 1 100 110 :how :cancelled :quantities [0] :seqs [1])
   (reserve 1 2 2 "o/t/p" [["jobs" 2]] 120 130)
   (reserve 2 2 3 "o" [["jobs" 1] ["disk" 4]] 140 150)
   (rd 3 160 170 ["o" "jobs" 3] ["o/t" "jobs" 2] ["o/t/p" "jobs" 2] ["o" "disk" 4])
   (settle 2 :complete 3 3 200 210 :actuals [1 3] :how :completed :quantities [1 3] :seqs [2 3])
   (settle 2 :cancel 4 3 220 230 :how :completed :quantities [1 3] :already true)  ; a late cancel: the first settlement
   (rd 3 240 250 ["o" "jobs" 2] ["o/t" "jobs" 2] ["o/t/p" "jobs" 2] ["o" "disk" 0 3])
   ;; reservation 2 is never settled: it expires (ttl 3 s) and keeps nothing (jobs is concurrent)
   (rd 3 5000 5010 ["o" "jobs" 0] ["o/t" "jobs" 0] ["o/t/p" "jobs" 0] ["o" "disk" 0 3])
   (ulog 3 6000 [1 1 "jobs" :cancelled 0] [2 3 "jobs" :completed 1] [3 3 "disk" :completed 3] [4 2 "jobs" :expired 2])])

(deftest passing-history
  (let [r (apply check (rc/reservation-checker) good)]
    (is (true? (:valid? r)) (pr-str r))
    (is (= 3 (get-in r [:limits :granted])))
    (is (= 2 (get-in r [:limits :levels "o/t/p jobs" :max-surely-used])))
    (is (= 4 (get-in r [:reads :read-count])))
    (is (= 1 (get-in r [:decisions :resent])))
    (is (= 0 (get-in r [:usage-events :unsettled-at-end])))))

(deftest limits-violation
  (testing "two reservations of 2 surely held at once at a level of limit 2"
    (let [r (check (rc/limits) (reserve 0 1 1 "o/t/p" [["jobs" 2]] 0 10) (reserve 1 1 2 "o/t/p" [["jobs" 2]] 20 30))]
      (is (false? (:valid? r)))
      (is (= 4 (get-in r [:levels "o/t/p jobs" :max-surely-used])))
      (is (true? (get-in r [:levels "o jobs" :valid?])) "4 ≤ 5 at the org")))
  (testing "the first one is released once its cancel is invoked, or after ttl·(1−ε)"
    (is (true? (:valid? (check (rc/limits) (reserve 0 1 1 "o/t/p" [["jobs" 2]] 0 10)
                               (settle 0 :cancel 2 1 15 500 :type :info)
                               (reserve 1 1 2 "o/t/p" [["jobs" 2]] 20 30)))))
    (is (true? (:valid? (check (rc/limits) (reserve 0 1 1 "o/t/p" [["jobs" 2]] 0 10 :ttl 1000)
                               (reserve 1 1 2 "o/t/p" [["jobs" 2]] 905 910))))))
  (testing "an :info reserve is not counted here"
    (is (true? (:valid? (check (rc/limits) (reserve 0 1 nil "o/t/p" [["jobs" 2]] 0 10 :type :info)
                               (reserve 1 1 2 "o/t/p" [["jobs" 2]] 20 30))))))
  (testing "allocation keeps what a completion settled: 4 + 4 kept, then 4 more > 10"
    (let [r (check (rc/limits) (reserve 0 1 1 "o" [["disk" 4]] 0 10)
                   (settle 0 :complete 2 1 20 30 :actuals [4] :how :completed :quantities [4])
                   (reserve 0 3 2 "o" [["disk" 4]] 40 50)
                   (settle 0 :complete 4 2 60 70 :actuals [4] :how :completed :quantities [4])
                   (reserve 0 5 3 "o" [["disk" 4]] 80 90))]
      (is (false? (:valid? r)))
      (is (= 12 (get-in r [:levels "o disk" :max-surely-used]))))))

(deftest reads-violations
  (testing "a read over the limit"
    (let [r (check (rc/reads) (reserve 0 1 1 "o/t/p" [["jobs" 2]] 0 10) (rd 1 20 30 ["o/t/p" "jobs" 3]))]
      (is (false? (:valid? r)))
      (is (some #{:over-limit} (map :kind (:errors r))))))
  (testing "a surely held reservation missing from a read (forgotten or released early)"
    (let [r (check (rc/reads) (reserve 0 1 1 "o/t/p" [["jobs" 2]] 0 10) (rd 1 20 30 ["o/t/p" "jobs" 0]))]
      (is (false? (:valid? r)))
      (is (= [:below-surely-held] (map :kind (:errors r))))))
  (testing "a resend charged twice: more held than all requests could hold"
    (let [r (check (rc/reads) (reserve 0 1 1 "o/t" [["jobs" 1]] 0 10) (reserve 0 1 1 "o/t" [["jobs" 1]] 20 30 :resend true)
                   (rd 1 40 50 ["o/t" "jobs" 2]))]
      (is (false? (:valid? r)))
      (is (= [:above-possibly-held] (map :kind (:errors r))))))
  (testing "an :info reserve counts against the bound: it may be held"
    (is (true? (:valid? (check (rc/reads) (reserve 0 1 nil "o/t" [["jobs" 1]] 0 10 :type :info)
                               (rd 1 40 50 ["o/t" "jobs" 1]))))))
  (testing "a refused reserve may not be held"
    (let [r (check (rc/reads) (reserve 0 1 nil "o/t" [["jobs" 1]] 0 10 :type :refused) (rd 1 40 50 ["o/t" "jobs" 1]))]
      (is (= [:above-possibly-held] (map :kind (:errors r)))))))

(deftest decisions-violations
  (testing "a resend answered differently"
    (let [r (check (rc/decisions) (reserve 0 1 1 "o" [["jobs" 1]] 0 10)
                   (reserve 0 1 nil "o" [["jobs" 1]] 20 30 :type :refused :resend true))]
      (is (false? (:valid? r)))
      (is (= [:conflicting-decisions] (map :kind (:errors r))))))
  (testing "one reservation id granted to two request ids"
    (let [r (check (rc/decisions) (reserve 0 1 7 "o" [["jobs" 1]] 0 10) (reserve 1 1 7 "o" [["jobs" 1]] 20 30))]
      (is (= [:reservation-id-reused] (map :kind (:errors r))))))
  (testing "a reservation settled twice, differently"
    (let [r (check (rc/decisions) (reserve 0 1 1 "o" [["jobs" 2]] 0 10)
                   (settle 0 :complete 2 1 20 30 :actuals [1] :how :completed :quantities [1] :seqs [1])
                   (settle 1 :cancel 1 1 40 50 :how :cancelled :quantities [0] :seqs [2]))]
      (is (= #{:conflicting-settlements :settled-twice} (set (map :kind (:errors r)))))))
  (testing "a completion that did not charge the actuals it was given"
    (let [r (check (rc/decisions) (reserve 0 1 1 "o" [["jobs" 2]] 0 10)
                   (settle 0 :complete 2 1 20 30 :actuals [1] :how :completed :quantities [2] :seqs [1]))]
      (is (= [:wrong-settlement] (map :kind (:errors r))))))
  (testing "a granted reservation unknown to a settlement"
    (let [r (check (rc/decisions) (reserve 0 1 1 "o" [["jobs" 2]] 0 10) (settle 0 :cancel 2 1 20 30 :type :unknown))]
      (is (= [:settlement-forgotten] (map :kind (:errors r))))))
  (testing "expired answers are fine for either"
    (is (true? (:valid? (check (rc/decisions) (reserve 0 1 1 "o" [["jobs" 2]] 0 10)
                               (settle 0 :complete 2 1 5000 5010 :actuals [1] :how :expired :quantities [2] :seqs [1])
                               (settle 0 :cancel 3 1 5020 5030 :how :expired :quantities [2] :already true)))))))

(deftest keys-one-reservation-per-key
  (testing "a retry from a restarted client under the same key answered with the same reservation"
    (let [r (check (rc/keys-checker)
                   [[0 :invoke :reserve {:scope "o" :items [{:resource "jobs" :amount 1}] :ttl-ms 3000
                                         :req-id [0 1] :idem-key "res-0-1" :kill-after-ms 3} 0]
                    [0 :ok :reserve {:scope "o" :items [{:resource "jobs" :amount 1}] :ttl-ms 3000
                                     :req-id [0 1] :idem-key "res-0-1" :kill-after-ms 3
                                     :reservation-id 4 :first-reservation-id 4 :restarted? true} 10]])]
      (is (true? (:valid? r)) (pr-str r))
      (is (= 1 (:restarted-retries r)))))
  (testing "two reservations for one key: the killed attempt's and the retry's"
    (let [r (check (rc/keys-checker)
                   [[0 :invoke :reserve {:scope "o" :items [{:resource "jobs" :amount 1}] :ttl-ms 3000
                                         :req-id [0 1] :idem-key "res-0-1" :kill-after-ms 3} 0]
                    [0 :ok :reserve {:scope "o" :items [{:resource "jobs" :amount 1}] :ttl-ms 3000
                                     :req-id [0 1] :idem-key "res-0-1" :kill-after-ms 3
                                     :reservation-id 5 :first-reservation-id 4 :restarted? true} 10]])]
      (is (false? (:valid? r)))
      (is (= [:two-reservations-for-one-key] (map :kind (:errors r))))
      (is (= [4 5] (sort (:reservation-ids (first (:errors r))))))))
  (testing "two ops under one key granted different reservations"
    (let [r (check (rc/keys-checker) (reserve 0 1 1 "o" [["jobs" 1]] 0 10)
                   (reserve 0 1 2 "o" [["jobs" 1]] 20 30 :resend true))]
      (is (= [:two-reservations-for-one-key] (map :kind (:errors r)))))))

(deftest usage-events-violations
  (let [base [(reserve 0 1 1 "o" [["jobs" 2]] 0 10)
              (settle 0 :complete 2 1 20 30 :actuals [1] :how :completed :quantities [1] :seqs [1])]]
    (is (true? (:valid? (apply check (rc/usage-events) (conj base (ulog 1 100 [1 1 "jobs" :completed 1]))))))
    (testing "two events for one settlement"
      (let [r (apply check (rc/usage-events) (conj base (ulog 1 100 [1 1 "jobs" :completed 1] [2 1 "jobs" :expired 2])))]
        (is (false? (:valid? r)))
        (is (some #{:duplicate-events} (map :kind (:errors r))))))
    (testing "an event that disagrees with the settlement answer"
      (let [r (apply check (rc/usage-events) (conj base (ulog 1 100 [1 1 "jobs" :completed 2])))]
        (is (= [:event-mismatch] (map :kind (:errors r))))))
    (testing "a settlement without its event"
      (let [r (apply check (rc/usage-events) (conj base (ulog 1 100)))]
        (is (= [:missing-event] (map :kind (:errors r))))))
    (testing "a settlement answer naming another record as its event"
      (let [r (apply check (rc/usage-events)
                     [(reserve 0 1 1 "o" [["jobs" 2]] 0 10)
                      (settle 0 :complete 2 1 20 30 :actuals [1] :how :completed :quantities [1] :seqs [2])
                      (ulog 1 100 [1 1 "jobs" :completed 1] [2 0 "jobs" :alert 0])])]
        (is (= [:event-seq-mismatch] (map :kind (:errors r))))))
    (testing "a reservation nobody asked for"
      (let [r (apply check (rc/usage-events) (conj base (ulog 1 100 [1 1 "jobs" :completed 1] [2 9 "jobs" :expired 1])))]
        (is (= [:phantom-reservations] (map :kind (:errors r))))))
    (testing "...unless an :info reserve may have made it"
      (is (true? (:valid? (apply check (rc/usage-events)
                                 (conj base (reserve 1 1 nil "o" [["jobs" 1]] 40 50 :type :info)
                                       (ulog 1 100 [1 1 "jobs" :completed 1] [2 9 "jobs" :expired 1])))))))
    (testing "...or an :info attempt of a key a later attempt saw refused"
      (is (true? (:valid? (apply check (rc/usage-events)
                                 (conj base (reserve 1 1 nil "o" [["jobs" 1]] 40 50 :type :info)
                                       (reserve 1 1 nil "o" [["jobs" 1]] 60 70 :type :refused)
                                       (ulog 1 100 [1 1 "jobs" :completed 1] [2 9 "jobs" :expired 1])))))))
    (testing "...but only one that fits it: the same scope, resources and, expired, amount"
      (is (= [:phantom-reservations]
             (map :kind (:errors (apply check (rc/usage-events)
                                        (conj base (reserve 1 1 nil "o" [["jobs" 2]] 40 50 :type :info)
                                              (ulog 1 100 [1 1 "jobs" :completed 1] [2 9 "jobs" :expired 1])))))))
      (is (= [:phantom-reservations]
             (map :kind (:errors (apply check (rc/usage-events)
                                        (conj base (reserve 1 1 nil "o" [["disk" 1]] 40 50 :type :info)
                                              (ulog 1 100 [1 1 "jobs" :completed 1] [2 9 "jobs" :expired 1]))))))))
    (testing "one indeterminate reserve explains one phantom, not two"
      (let [r (apply check (rc/usage-events)
                     (conj base (reserve 1 1 nil "o" [["jobs" 1]] 40 50 :type :info)
                           (ulog 1 100 [1 1 "jobs" :completed 1] [2 9 "jobs" :expired 1] [3 10 "jobs" :expired 1])))]
        (is (= [:phantom-reservations] (map :kind (:errors r))))
        (is (= 1 (:unexplained (first (:errors r)))))))
    (testing "no usage log read: unknown"
      (is (= :unknown (:valid? (apply check (rc/usage-events) base)))))))

(deftest phantom-matching
  (testing "a matching, not a first fit: the reserve that fits both phantoms is left to the one only it fits"
    (is (= [] (rc/unexplained-phantoms
               {9 [{:scope "o" :resource "jobs" :type :completed :quantity 0}]
                10 [{:scope "o" :resource "jobs" :type :expired :quantity 1}]}
               [{:scope "o" :items [{:resource "jobs" :amount 1}]}
                {:scope "o" :items [{:resource "jobs" :amount 3}]}])))
    (is (= [10] (rc/unexplained-phantoms
                 {9 [{:scope "o" :resource "jobs" :type :expired :quantity 1}]
                  10 [{:scope "o/t" :resource "jobs" :type :expired :quantity 1}]}
                 [{:scope "o" :items [{:resource "jobs" :amount 1}]}])))))

(deftest killed-attempts
  (let [c {:type :fail :f :reserve :value {:req-id [0 1]} :error [:NOT_LEADER "not the leader"]}
        refused {:type :fail :f :reserve :value {:req-id [0 1]} :error [:outcome :limit_exhausted]}
        ok {:type :ok :f :reserve :value {:req-id [0 1] :reservation-id 7}}]
    (testing "the retry's definite failure says nothing about an attempt whose outcome is unknown"
      (let [r (rw/killed-completion c :unknown)]
        (is (= :info (:type r)))
        (is (= [:killed-attempt-unknown [:NOT_LEADER "not the leader"]] (:error r)))
        (is (true? (get-in r [:value :restarted?])))))
    (testing "nor does its refusal"
      (is (= :info (:type (rw/killed-completion refused :unknown)))))
    (testing "a retry that reserved is the op's answer"
      (is (= :ok (:type (rw/killed-completion ok :unknown)))))
    (testing "a killed attempt that certainly did nothing leaves the retry's answer"
      (is (= :fail (:type (rw/killed-completion c :refused))))
      (is (= [:outcome :limit_exhausted] (:error (rw/killed-completion refused :refused)))))
    (testing "a killed attempt that reserved is kept for the keys checker"
      (is (= 4 (get-in (rw/killed-completion ok {:granted 4}) [:value :first-reservation-id]))))
    (testing "a killed attempt that reserved makes the op :ok with its reservation, whatever the retry said"
      (let [r (rw/killed-completion c {:granted 4 :expires-at-ms 900 :config-version 2})]
        (is (= :ok (:type r)))
        (is (nil? (:error r)))
        (is (= 4 (get-in r [:value :reservation-id])))
        (is (= 900 (get-in r [:value :expires-at-ms])))
        (is (= [:fail [:NOT_LEADER "not the leader"]] ((juxt :retry-type :retry-error) (:value r))))))
    (testing "a retry refused under a key whose killed attempt reserved is reported by the keys checker"
      (let [k (fn [& ops] (c/check (rc/keys-checker) {} (h/index ops) opts))
            r (fn [c] (assoc-in (rw/killed-completion c {:granted 4 :expires-at-ms 900 :config-version 2})
                                [:value :idem-key] "k1"))
            invoke {:type :invoke :f :reserve :process 0 :time 0 :value {:req-id [0 1] :idem-key "k1"}}]
        (is (false? (:valid? (k invoke (assoc (r refused) :process 0 :time 1)))))
        (is (= :retry-refused-under-a-reserved-key
               (get-in (k invoke (assoc (r refused) :process 0 :time 1)) [:errors 0 :kind])))
        (is (true? (:valid? (k invoke (assoc (r c) :process 0 :time 1)))) "a definite error is no contradiction")))))

(deftest prepare-op-shapes
  (let [o (assoc rw/defaults :disk-fraction 1.0 :abandon-fraction 0.0)
        s {:cid 3 :next-req 10 :opts o :outstanding [] :seen #{}}
        [s1 op1] (rw/prepare-op s {:f :complete} 0)
        c1 (assoc op1 :type :ok :value (assoc (:value op1) :reservation-id 42))
        s2 (rw/apply-completion s1 c1)
        [s3 op3] (rw/prepare-op s2 {:f :complete} 0)
        [_ op4] (rw/prepare-op (rw/apply-completion s3 (assoc op3 :type :info)) {:f :reserve} 0)]
    (is (= :reserve (:f op1)) "nothing outstanding: a complete intent becomes a reserve")
    (is (= [3 10] (get-in op1 [:value :req-id])))
    (is (= ["jobs" "disk"] (map :resource (get-in op1 [:value :items]))))
    (is (= [{:id 42 :items (get-in op1 [:value :items])}] (:outstanding s2)))
    (is (= :complete (:f op3)))
    (is (= 42 (get-in op3 [:value :reservation-id])))
    (is (= 2 (count (get-in op3 [:value :actuals]))))
    (is (empty? (:outstanding s3)))
    (is (= [:complete (get-in op3 [:value :req-id]) true] [(:f op4) (get-in op4 [:value :req-id]) (get-in op4 [:value :resend?])])
        "after an :info the next op resends the same request id")
    (is (= "res-3-10" (get-in op1 [:value :idem-key])) "every reserve carries its own key")
    (is (nil? (get-in op3 [:value :idem-key])) "settlements are idempotent by reservation id")
    (is (true? (get-in op4 [:value :after-info?])) "a resend after :info is marked for a new client")
    (is (= ["o" "o/t" "o/t/p"] (rc/levels-of "o/t/p")))))
