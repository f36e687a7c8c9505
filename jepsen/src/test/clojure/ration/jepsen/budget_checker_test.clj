(ns ration.jepsen.budget-checker-test
  "The quota-budget checkers on synthetic histories: admissions within every level's limit
  pass and one unit over any level fails; billing must never exceed what was admitted, and
  must equal it once every holder closed. Soft levels (an overdraft E per holder) may go past
  their limit by E per (holder, scope path) under them, never further; a hard level stays held
  to its limit beside them; overage billed never exceeds what the holders overdrew."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.checker.budget :as bc]
            [ration.jepsen.history :as h]))

(defn ms [x] (long (* x 1000000)))

(defn hist
  "Ops as [process type f value time-ms]."
  [& ops]
  (h/index (for [[p t f v tm] ops] {:process p :type t :f f :value v :time (ms tm)})))

(def opts {:catalog [["o" 10] ["o/a" 6] ["o/a/x" 4]]})

(defn check [checker history] (c/check checker {} history opts))

(defn spend [p scope n admitted t]
  [[p :invoke :spend {:scope scope :n n} t]
   [p :ok :spend {:scope scope :n n :admitted admitted :reason (if (pos? admitted) :admitted :exhausted)} (+ t 0.1)]])

(deftest admissions-within-and-over-a-level
  (let [ok (apply hist (concat (spend 0 "o/a/x" 4 4 1) (spend 1 "o/a" 2 2 2) (spend 1 "o/b" 4 4 3)
                               (spend 0 "o/a/x" 1 0 4)))
        r (check (bc/admissions) ok)]
    (is (true? (:valid? r)) (pr-str r))
    (is (= {"o" 10 "o/a" 6 "o/a/x" 4} (:admitted r))))
  (testing "one unit over the tenant level fails, whatever the project levels say"
    (let [over (apply hist (concat (spend 0 "o/a/x" 4 4 1) (spend 1 "o/a" 3 3 2)))
          r (check (bc/admissions) over)]
      (is (false? (:valid? r)))
      (is (= {"o/a" [7 6]} (:over-bound r)))
      (is (= {"o/a" 1} (:beyond-limit r)))))
  (testing "a refused or unfinished spend admits nothing"
    (let [h (apply hist (concat (spend 0 "o/a/x" 4 0 1) [[1 :invoke :spend {:scope "o" :n 20} 2]
                                                          [1 :info :spend {:scope "o" :n 20} 3]]))]
      (is (true? (:valid? (check (bc/admissions) h)))))))

(deftest billing-equals-admissions-once-every-holder-closed
  (let [base (concat (spend 0 "o/a/x" 3 3 1) (spend 1 "o/a" 2 2 2))
        closes [[0 :invoke :close {} 5] [0 :ok :close {} 6] [1 :invoke :close {} 5] [1 :ok :close {} 6]]
        usage (fn [levels] [[0 :invoke :usage {} 7] [0 :ok :usage {:levels levels} 8]])]
    (is (true? (:valid? (check (bc/billing) (apply hist (concat base closes (usage {"o" 5 "o/a" 5 "o/a/x" 3})))))))
    (testing "billed less than admitted although every holder returned its budgets"
      (let [r (check (bc/billing) (apply hist (concat base closes (usage {"o" 4 "o/a" 4 "o/a/x" 3}))))]
        (is (false? (:valid? r)))
        (is (= {"o" [4 5] "o/a" [4 5]} (:billed-differs r)))))
    (testing "a holder that could not close may be billed less, never more"
      (let [partial [[0 :invoke :close {} 5] [0 :ok :close {} 6] [1 :invoke :close {} 5] [1 :info :close {} 6]]]
        (is (true? (:valid? (check (bc/billing) (apply hist (concat base partial (usage {"o" 3 "o/a" 3 "o/a/x" 3})))))))
        (is (false? (:valid? (check (bc/billing) (apply hist (concat base partial (usage {"o" 6 "o/a" 5 "o/a/x" 3})))))))))
    (testing "no usage read: unknown"
      (is (= :unknown (:valid? (check (bc/billing) (apply hist (concat base closes)))))))))

;; ------------------------------------------------------------------ soft quotas

(def soft-opts
  "o soft (E 2), o/a soft (E 3), o/a/x soft (E 5): a budget at o/a/x carries min = 2, at o/a 2;
  o/b hard (its paths carry 0)."
  {:catalog [["o" 10 2] ["o/a" 6 3] ["o/a/x" 4 5] ["o/b" 3]]})

(defn check-soft [checker history] (c/check checker {} history soft-opts))

(defn spend-h
  "A spend by holder h (its own process), with the limiter's overdraft count."
  ([h scope n admitted t] (spend-h h scope n admitted 0 t))
  ([h scope n admitted overdrawn t]
   (let [v {:scope scope :n n :holder h}]
     [[h :invoke :spend v t]
      [h :ok :spend (cond-> (assoc v :admitted admitted :reason (if (pos? admitted) :admitted :exhausted))
                      (pos? overdrawn) (assoc :overdrawn overdrawn)) (+ t 0.1)]])))

(deftest soft-bounds-count-E-per-holder-and-path
  (let [h (apply hist (concat (spend-h 0 "o/a/x" 1 1 1) (spend-h 1 "o/a/x" 1 1 2) (spend-h 1 "o/a" 1 1 3)
                              (spend-h 2 "o/b" 1 1 4)))
        b (bc/bounds h (:catalog soft-opts))]
    (testing "o: holders 0 and 1 at o/a/x and o/a carry 2 each, holder 2 at the hard o/b nothing"
      (is (= {:limit 10 :overdraft 2 :holders 4 :slack 6 :bound 16} (b "o"))))
    (is (= 12 (get-in b ["o/a" :bound])) "three pairs under o/a, 2 each")
    (is (= 8 (get-in b ["o/a/x" :bound])) "two holders at o/a/x, each carrying min(2, 3, 5)")
    (is (= {:limit 3 :overdraft 0 :holders 1 :slack 0 :bound 3} (b "o/b")))))

(deftest soft-admissions-within-and-over-limit-plus-overdrafts
  ;; Holders 0 and 1 at o/a/x (bound 4 + 2·2 = 8 there; o/a 6 + 4 = 10; o: 10 + 4 = 14).
  (let [within (apply hist (concat (spend-h 0 "o/a/x" 2 2 1) (spend-h 1 "o/a/x" 2 2 2)
                                   ;; both cut off, each overdraws its E = 2
                                   (spend-h 0 "o/a/x" 2 2 2 3) (spend-h 1 "o/a/x" 2 2 2 4)
                                   (spend-h 0 "o/a/x" 1 0 5)))
        r (check-soft (bc/admissions) within)]
    (is (true? (:valid? r)) (pr-str r))
    (is (= {"o" 8 "o/a" 8 "o/a/x" 8 "o/b" 0} (:admitted r)))
    (is (= {"o/a" 2 "o/a/x" 4} (:beyond-limit r)) "past the limit by the overdraft used")
    (is (= 4 (get-in r [:overdrawn "o/a/x"])))
    (is (= 2 (:overdraft-admits r)))
    (is (= {"o" 2 "o/a" 3 "o/a/x" 5} (:overdrafts r))))
  (testing "one unit past limit + ΣE at a soft level fails"
    (let [over (apply hist (concat (spend-h 0 "o/a/x" 2 2 1) (spend-h 1 "o/a/x" 2 2 2)
                                   (spend-h 0 "o/a/x" 2 2 2 3) (spend-h 1 "o/a/x" 2 2 2 4)
                                   (spend-h 1 "o/a/x" 1 1 1 5)))
          r (check-soft (bc/admissions) over)]
      (is (false? (:valid? r)))
      (is (= {"o/a/x" [9 8]} (:over-bound r)))))
  (testing "a holder admitting without its budgets (no overdraft reported) is caught as well"
    (let [rogue (apply hist (concat (spend-h 0 "o/a/x" 4 4 1) (spend-h 0 "o/a/x" 4 4 2) (spend-h 0 "o/a/x" 4 4 3)))
          r (check-soft (bc/admissions) rogue)]
      (is (false? (:valid? r)))
      (is (= {"o/a/x" [12 6] "o/a" [12 8]} (:over-bound r)) "o: 12 of 10 + 2, within"))))

(deftest hard-level-beside-soft-ones-keeps-its-limit
  (let [h (apply hist (concat (spend-h 0 "o/b" 2 2 1) (spend-h 1 "o/b" 2 2 2)))
        r (check-soft (bc/admissions) h)]
    (is (false? (:valid? r)) "4 of 3 at the hard o/b, whatever its soft parent allows")
    (is (= {"o/b" [4 3]} (:over-bound r)))
    (is (= 10 (get-in r [:bounds "o"])) "o is soft, but o/b's holders carry no overdraft")
    (is (= 3 (get-in r [:bounds "o/b"]))))
  (testing "an overdraft on a path with a hard level is a violation in itself"
    (let [h (apply hist (spend-h 0 "o/b" 2 2 1 1))
          r (check-soft (bc/admissions) h)]
      (is (false? (:valid? r)))
      (is (= 1 (:bad-overdraft-count r)))))
  (testing "and a decision never overdraws more than it admitted"
    (is (false? (:valid? (check-soft (bc/admissions) (apply hist (spend-h 0 "o/a/x" 2 2 3 1)))))))
  (testing "the hard catalog of the first tests: holders change nothing"
    (let [h (apply hist (concat (spend-h 0 "o/a/x" 4 4 1) (spend-h 1 "o/a/x" 1 1 2)))]
      (is (= {"o/a/x" [5 4]} (:over-bound (check (bc/admissions) h)))))))

(deftest soft-billing-includes-overage-and-bills-no-more-than-overdrawn
  (let [base (concat (spend-h 0 "o/a/x" 4 4 1) (spend-h 1 "o/a" 2 2 2) (spend-h 0 "o/a/x" 2 2 2 3))
        closes [[0 :invoke :close {} 5] [0 :ok :close {} 6] [1 :invoke :close {} 5] [1 :ok :close {} 6]]
        usage (fn [levels overage] [[0 :invoke :usage {} 7]
                                    [0 :ok :usage {:levels levels :overage overage :overage-events 1 :complete? true} 8]])
        billed {"o" 8 "o/a" 8 "o/a/x" 6 "o/b" 0}]
    (testing "billed = admitted, the overdraft included, and overage within what was overdrawn"
      (let [r (check-soft (bc/billing) (apply hist (concat base closes (usage billed {"o" 2 "o/a" 2 "o/a/x" 2 "o/b" 0}))))]
        (is (true? (:valid? r)) (pr-str r))
        (is (= {"o" 2 "o/a" 2 "o/a/x" 2 "o/b" 0} (:billed-overage r)))))
    (testing "the overdraft admitted but not billed: invalid once every holder closed"
      (let [r (check-soft (bc/billing) (apply hist (concat base closes (usage {"o" 6 "o/a" 6 "o/a/x" 4 "o/b" 0}
                                                                             {"o" 0 "o/a" 0 "o/a/x" 0 "o/b" 0}))))]
        (is (false? (:valid? r)))
        (is (= {"o" [6 8] "o/a" [6 8] "o/a/x" [4 6]} (:billed-differs r)))))
    (testing "more overage billed than the holders overdrew"
      (let [r (check-soft (bc/billing) (apply hist (concat base closes (usage billed {"o" 3 "o/a" 3 "o/a/x" 3 "o/b" 0}))))]
        (is (false? (:valid? r)))
        (is (= {"o" [3 2] "o/a" [3 2] "o/a/x" [3 2]} (:overage-over-overdrawn r)))))))
