(ns ration.jepsen.membership-nemesis-test
  "The membership nemesis's schedule (a change inside another fault's window, the final heal
  adding the removed nodes back after the other faults heal) and the lease checker over
  histories that contain membership changes: a ledger that forgot an acknowledged lease across
  a removal and re-add fails it; the same history without the second grant passes."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.history :as h]
            [ration.jepsen.nemesis :as nemesis]))

(defn- drain-nemesis
  "The nemesis ops of gen, the nemesis thread always free, for at most limit-s seconds."
  [g limit-s]
  (loop [g g, t 0, out [], i 0]
    (let [ctx {:time t :free-threads #{:nemesis} :threads [:nemesis] :workers {:nemesis :nemesis}}
          r (gen/op g {} ctx)]
      (cond
        (or (nil? r) (> i 100000) (> t (* limit-s 1e9))) out
        (= :pending (first r)) (recur (second r) (+ t 10000000) out (inc i))
        :else (recur (second r) (max t (:time (first r))) (conj out (assoc (first r) :at-s (/ t 1e9))) (inc i))))))

(deftest membership-kill-changes-membership-inside-the-kill-window
  (let [{:keys [generator final-generator nemesis]} (nemesis/package [:membership-kill] {:interval 8 :hold 8 :recovery-s 60})
        ops (drain-nemesis generator 40)]
    (is (some? nemesis))
    (testing "one cycle: kill, remove while killed, restart, add back; remove, kill, add back while killed, restart"
      (is (= [:kill :remove-node :start :add-node :remove-node :kill :add-node :start] (take 8 (map :f ops)))))
    (testing "every op is one the nemesis handles"
      (is (every? #{:kill :start :remove-node :add-node} (map :f ops))))
    (testing "the final heal restarts the killed nodes first, then adds every removed node back, then waits"
      (is (= [{:f :start}
              {:f :add-node :value {:nodes :all :timeout-s 60}}
              {:f :await-recovery :value {:timeout-s 60}}]
             final-generator)))))

(deftest membership-partition-and-plain-membership
  (let [p (nemesis/package [:membership-partition] {:interval 8 :hold 8 :recovery-s 90})]
    (is (= [:start-partition :remove-node :stop-partition :add-node] (take 4 (map :f (drain-nemesis (:generator p) 40)))))
    (is (= [:stop-partition :add-node :await-recovery] (map :f (:final-generator p)))))
  (let [p (nemesis/package [:membership] {:interval 8 :hold 8 :recovery-s 90})
        ops (drain-nemesis (:generator p) 40)]
    (is (= [:remove-node :add-node :remove-node :add-node] (take 4 (map :f ops))))
    (is (every? #(#{:one :primaries} (:value %)) (filter #(= :remove-node (:f %)) ops)))
    (is (= [:add-node :await-recovery] (map :f (:final-generator p)))))
  (is (contains? nemesis/network-faults :membership-partition))
  (is (thrown? IllegalArgumentException (nemesis/package [:membership-nope] {:interval 8 :hold 8}))))

;; A remove whose answer does not say it was refused before anything was proposed may still
;; commit: the nemesis must settle it before counting the node a member again.
(deftest removal-outcomes
  (is (= :removed (db/removal-outcome 200)))
  (doseq [s [400 409 412]] (is (= :not-removed (db/removal-outcome s)) (str s)))
  (doseq [s [nil 421 500 503 504]] (is (= :uncertain (db/removal-outcome s)) (str s))))

;; ------------------------------------------------------------------ the checker over membership histories

(def opts {:tenants {"t1" {:rate 100 :burst 50}} :epsilon 0.1})

(defn- ms [x] (long (* x 1000000)))

(defn- hist [& ops]
  (h/index (for [[p t f v tm] ops] {:process p :type t :f f :value v :time (ms tm)})))

(defn- acquire [p id rate burst t0 t1]
  [[p :invoke :acquire {:tenant "t1" :req-id [p id]} t0]
   [p :ok :acquire {:tenant "t1" :req-id [p id] :lease-id id :version 1 :rate rate :burst burst :ttl-ms 3000} t1]])

(defn- membership-history
  "An acknowledged lease of 60 of R = 100 granted at 0.01 s; the leader is removed and wiped at
  0.5 s and added back at 1.5 s; more leases follow. second-grant: the ledger grants 60 more at
  2.0 s (while the first is still usable: it ends at 0 + 3 s · 0.9), as a ledger that lost the
  first lease across the change would."
  [second-grant?]
  (apply hist (concat (acquire 0 1 60 30 0 10)
                      [[:nemesis :info :remove-node :primaries 500]
                       [:nemesis :info :remove-node {:removed :n1 :spec :primaries} 900]
                       [:nemesis :info :add-node :all 1000]
                       [:nemesis :info :add-node {:nodes [:n1] :results [{:added :n1}]} 1500]]
                      (if second-grant?
                        (acquire 1 2 60 30 2000 2010)
                        (acquire 1 2 40 20 2000 2010))
                      [[:nemesis :info :add-node {:nodes :all :timeout-s 90} 4000]
                       [:nemesis :info :add-node {:nodes [] :results []} 4001]
                       [:nemesis :info :await-recovery {:timeout-s 90} 4002]
                       [:nemesis :info :await-recovery {:recovered? true :seconds 0.1} 4100]]
                      (acquire 2 3 60 30 5000 5010))))

(deftest lease-checker-over-membership-changes
  (testing "capacity granted within R around a removal and re-add passes"
    (let [r (c/check (c/lease-checker) {} (membership-history false) opts)]
      (is (true? (:valid? r)) (pr-str (into {} (for [[k v] r :when (map? v)] [k (:valid? v)]))))
      (is (true? (get-in r [:conservation :valid?])))))
  (testing "an acknowledged lease forgotten across the change (60 + 60 > R) fails :conservation"
    (let [r (c/check (c/lease-checker) {} (membership-history true) opts)]
      (is (false? (:valid? r)))
      (is (false? (get-in r [:conservation :valid?])))
      (is (= 1 (get-in r [:conservation :tenants "t1" :violation-count]))))))
