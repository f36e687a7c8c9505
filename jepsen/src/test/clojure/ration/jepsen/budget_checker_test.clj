(ns ration.jepsen.budget-checker-test
  "The quota-budget checkers on synthetic histories: admissions within every level's limit
  pass and one unit over any level fails; billing must never exceed what was admitted, and
  must equal it once every holder closed."
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
      (is (= {"o/a" [7 6]} (:over-limit r)))))
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
