(ns ration.jepsen.ttl-checker-test
  "The TTL checkers (freshness, fencing, versions) on synthetic histories: one passing history
  and one violation per rule."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.ttl :as ttl]))

(defn ms [x] (long (* x 1000000)))

(defn hist
  "Ops as [process type f value time-ms]; indexes stamped in order."
  [& ops]
  (h/index (for [[p t f v tm] ops] {:process p :type t :f f :value v :time (ms tm)})))

(defn op
  "An invocation and its completion: value for the invoke, extra merged into the completion."
  [p f v t0 t1 & {:keys [type extra] :or {type :ok}}]
  [[p :invoke f v t0] [p type f (merge v extra) t1]])

(defn put [p k value version expires t0 t1 & {:keys [f type] :or {f :put type :ok}}]
  (op p f {:key k :value value :ttl-ms 2000} t0 t1 :type type
      :extra (when (= :ok type) {:version version :expires-at-ms expires})))

(defn get* [p k value version expires read-at t0 t1]
  (op p :get {:key k} t0 t1
      :extra (if value
               {:found? true :value value :version version :expires-at-ms expires :read-at-ms read-at}
               {:found? false :read-at-ms read-at})))

(defn near-get [p k value version t0 t1]
  (op p :get {:key k} t0 t1
      :extra (if value
               {:found? true :near? true :staleness-ms 1000 :value value :version version :expires-at-ms 3000}
               {:found? false :near? true :staleness-ms 1000})))

(defn lock [p l token t0 t1 & {:keys [type] :or {type :ok}}]
  (op p :lock {:lock l :owner (str "p" p) :ttl-ms 2000} t0 t1 :type type
      :extra (when (= :ok type) {:token token :expires-at-ms 99999})))

(defn check [checker & ops] (c/check checker {} (apply hist (apply concat ops)) {}))

(deftest freshness-pass
  (let [r (check (c/ttl-freshness)
                 (put 0 "k0" "0-0" 5 3000 0 10)
                 (get* 1 "k0" "0-0" 5 3000 2999 20 30)   ; 1 ms left: still live
                 (get* 1 "k0" nil 0 0 3000 40 50)          ; a miss is always fine
                 (put 2 "k1" "2-0" 0 0 60 9000 :type :info)
                 (get* 3 "k1" "2-0" 7 4000 1000 100 110))] ; an :info write may have happened
    (is (true? (:valid? r)) (pr-str r))
    (is (= 2 (:found-reads r)))))

(deftest freshness-violations
  (testing "a value whose own expiry is at (or before) the read time"
    (let [r (check (c/ttl-freshness) (put 0 "k0" "0-0" 5 3000 0 10) (get* 1 "k0" "0-0" 5 3000 3000 20 30))]
      (is (false? (:valid? r)))
      (is (= [:expired-read] (map :kind (:errors r))))))
  (testing "a value nobody wrote"
    (let [r (check (c/ttl-freshness) (put 0 "k0" "0-0" 5 3000 0 10) (get* 1 "k0" "9-9" 5 3000 100 20 30))]
      (is (false? (:valid? r)))
      (is (= #{:never-written :version-value-mismatch} (set (map :kind (:errors r)))))))
  (testing "a version older than a write that completed before the read began"
    (let [r (check (c/ttl-freshness) (put 0 "k0" "0-0" 5 3000 0 10) (put 0 "k0" "0-1" 6 3000 20 30)
                   (get* 1 "k0" "0-0" 5 3000 100 40 50))]
      (is (false? (:valid? r)))
      (is (= [:stale-read] (map :kind (:errors r)))))))

(deftest fencing-pass
  (let [r (check (c/ttl-fencing)
                 (lock 0 "L0" 3 0 10)
                 (lock 1 "L0" 0 5 15 :type :fail)
                 (lock 1 "L0" 8 3000 3010)
                 ;; Overlapping acquisitions (an :info-then-lapsed lock) may complete in either order.
                 (lock 2 "L1" 12 4000 4100)
                 (lock 3 "L1" 11 4050 4060)
                 (lock 0 "L0" 20 5000 5010))]
    (is (true? (:valid? r)) (pr-str r))
    (is (= {"L0" 3 "L1" 2} (:acquisitions r)))))

(deftest fencing-violations
  (testing "a later acquisition with a smaller token"
    (let [r (check (c/ttl-fencing) (lock 0 "L0" 8 0 10) (lock 1 "L0" 7 3000 3010))]
      (is (false? (:valid? r)))
      (is (= [:token-not-increasing] (map :kind (:errors r))))))
  (testing "two holders with the same token (even overlapping)"
    (let [r (check (c/ttl-fencing) (lock 0 "L0" 8 0 100) (lock 1 "L0" 8 50 60))]
      (is (false? (:valid? r)))
      (is (= [:duplicate-token] (map :kind (:errors r))))))
  (testing "tokens of different locks are independent"
    (is (true? (:valid? (check (c/ttl-fencing) (lock 0 "L0" 8 0 10) (lock 1 "L1" 7 3000 3010)))))))

(deftest versions-pass
  (let [r (check (c/ttl-versions)
                 (put 0 "k0" "0-0" 5 3000 0 10)
                 (put 1 "k0" "1-0" 9 3000 20 30 :f :cas)
                 (op 2 :refresh {:key "k0" :ttl-ms 1000} 40 50 :extra {:version 9 :expires-at-ms 4000})
                 (put 0 "k1" "0-1" 7 3000 40 50)          ; another key: its own order
                 (put 1 "k0" "1-1" 12 3000 60 100)
                 (put 2 "k0" "2-1" 11 3000 70 90))]       ; overlapping writes: either order
    (is (true? (:valid? r)) (pr-str r))
    (is (= 5 (:writes r)))))

(deftest versions-violations
  (testing "a later write with a version no larger"
    (let [r (check (c/ttl-versions) (put 0 "k0" "0-0" 5 3000 0 10) (put 1 "k0" "1-0" 5 3000 20 30 :f :cas))]
      (is (false? (:valid? r)))
      (is (= [:version-not-increasing] (map :kind (:errors r))))))
  (testing "a refresh reporting a version older than a completed write"
    (let [r (check (c/ttl-versions) (put 0 "k0" "0-0" 5 3000 0 10)
                   (op 1 :refresh {:key "k0" :ttl-ms 1000} 20 30 :extra {:version 4 :expires-at-ms 4000}))]
      (is (false? (:valid? r)))
      (is (= [:refresh-older-than-write] (map :kind (:errors r)))))))

(deftest composed-ttl-checker
  (let [r (check (c/ttl-checker) (put 0 "k0" "0-0" 5 3000 0 10) (get* 1 "k0" "0-0" 5 3000 100 20 30)
                 (lock 0 "L0" 6 40 50))]
    (is (true? (:valid? r)) (pr-str r))
    (is (= #{:freshness :fencing :versions :stats :ledger-clock :exceptions :valid?} (set (keys r))))))

(deftest prepare-op-shapes
  (let [s {:cid 3 :next 0 :opts ttl/defaults :versions {"k0" 5 "k1" 5 "k2" 5} :held {}}
        [s1 cas] (ttl/prepare-op s {:f :cas})
        [s2 un] (ttl/prepare-op s1 {:f :unlock})
        [s3 un2] (ttl/prepare-op (assoc s2 :held {"L1" {:token 9}}) {:f :unlock})]
    (is (= {:expected-version 5 :value "3-0"} (select-keys (:value cas) [:expected-version :value])))
    (is (<= 1000 (get-in cas [:value :ttl-ms]) 3000))
    (is (= 1 (:next s1)))
    (is (= :lock (:f un)) "no lock held: an unlock intent becomes a lock")
    (is (= {:lock "L1" :token 9} (:value un2)))
    (is (= {} (:held s3)))))

(deftest near-cache-reads-are-held-to-their-staleness-bound
  (testing "an older version within the bound after a newer write: allowed, and no readAt to judge expiry by"
    (let [r (check (c/ttl-freshness) (put 0 "k0" "0-0" 5 3000 0 10) (put 0 "k0" "0-1" 6 3000 20 30)
                   (near-get 1 "k0" "0-0" 5 500 510))]
      (is (true? (:valid? r)) (pr-str r))
      (is (= 1 (:near-reads r)))))
  (testing "an older version more than the bound after a newer write completed: a stale near read"
    (let [r (check (c/ttl-freshness) (put 0 "k0" "0-0" 5 3000 0 10) (put 0 "k0" "0-1" 6 3000 20 30)
                   (near-get 1 "k0" "0-0" 5 1031 1040))]
      (is (false? (:valid? r)))
      (is (= [:stale-near-read] (map :kind (:errors r))))))
  (testing "a value nobody wrote is caught through the cache too"
    (let [r (check (c/ttl-freshness) (put 0 "k0" "0-0" 5 3000 0 10) (near-get 1 "k0" "7-7" 9 20 30))]
      (is (= [:never-written] (map :kind (:errors r)))))))
