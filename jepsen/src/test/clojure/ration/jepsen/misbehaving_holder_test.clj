(ns ration.jepsen.misbehaving-holder-test
  "Evidence the checkers bite: test-only holders that misbehave on purpose (admit after their
  lease expired, refill the bucket on renewal, spend a returned share) are driven through the
  modelled holder logic (ration.jepsen.modelled-holder: prepare-op / apply-completion, what the
  lease workload used before it admitted through the real limiter) against a simulated correct
  ledger; the recorded history must fail the lease checker, and the honest holder's must pass."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.history :as h]
            [ration.jepsen.modelled-holder :as mh]
            [ration.jepsen.workload.lease :as lease]))

(def opts (assoc lease/defaults :tenants {"t1" {:rate 100 :burst 50}} :admit-max 25))

(defn simulate
  "Two holders of t1 follow intents every 50 ms for 8 s; a simulated ledger grants each lease
  half of R and B (so the ledger itself conserves). Returns the history."
  [holder intents]
  (let [states (atom (into {} (for [p [0 1]] [p {:tenant "t1" :cid p :next-req 1 :opts opts :holder holder :lease nil}])))
        ids (atom 0), out (transient [])]
    (doseq [step (range 160), p [0 1]
            :let [t (* 1000000 (+ p (* 50 step)))
                  [s op] (mh/prepare-op (@states p) {:type :invoke :process p :f (intents p step) :time t} t)
                  v (:value op)
                  c (case (:f op)
                      :acquire (assoc op :type :ok :value (merge v {:lease-id (swap! ids inc) :version 1 :rate 50 :burst 25
                                                                    :ttl-ms 3000 :start-balance 0}))
                      :renew (assoc op :type :ok :value (merge v {:version (inc (:version v)) :rate 50 :burst 25 :ttl-ms 3000}))
                      :release (assoc op :type :ok :value (assoc v :credited 0))
                      :admit (assoc op :type :ok :value (assoc v :n (:admitted s)))
                      :ledger-read nil)
                  c (when c (assoc c :time (+ t 1000000)))
                  s (if (and c (#{:acquire :renew} (:f c))) (mh/apply-completion s c (:time c)) s)]]
      (swap! states assoc p s)
      (when c (conj! out op) (conj! out c)))
    (h/index (persistent! out))))

(defn busy [_ _] :admit)
(defn returner [_ step] (if (= 40 (mod step 80)) :release :admit))

(defn results [holder intents] (c/check (c/lease-checker) {} (simulate holder intents) opts))

(deftest honest-holders-pass
  (let [r (results mh/honest returner)]
    (is (true? (get-in r [:conservation :valid?])))
    (is (true? (get-in r [:admissions :valid?])) (pr-str (:admissions r)))
    (is (true? (get-in r [:lifecycle :valid?])) (pr-str (:lifecycle r)))
    (is (pos? (reduce + (map :admitted (vals (get-in r [:admissions :tenants]))))))))

(deftest admitting-after-expiry-is-caught
  (let [evil (assoc mh/honest
                    :renew? (constantly false)
                    :granted (fn [g t eps] (assoc ((:granted mh/honest) g t eps) :end Long/MAX_VALUE)))
        r (results evil busy)]
    (is (false? (:valid? r)))
    (is (false? (get-in r [:lifecycle :valid?])))
    (is (some #(= :admit-outside-lease (:kind %)) (get-in r [:lifecycle :errors])))))

(deftest refilling-on-renewal-is-caught
  (let [evil (assoc mh/honest
                    :renew? (fn [_ _] true)   ; renew at every chance, refilling each time
                    :renewed (fn [l g t eps] (assoc ((:renewed mh/honest) l g t eps) :bal (double (:burst g)))))
        intents (fn [_ step] (if (even? step) :renew :admit))
        evil (assoc evil :renew? (fn [s t] false))
        r (results evil intents)]
    (is (false? (:valid? r)))
    (is (false? (get-in r [:admissions :valid?])) (pr-str (:admissions r)))))

(deftest spending-a-returned-share-is-caught
  (let [evil (assoc mh/honest :released (fn [l t] [l (long (Math/floor (:bal (mh/refill l t))))]))
        r (results evil returner)]
    (is (false? (:valid? r)))
    (is (some #(= :admit-after-release (:kind %)) (get-in r [:lifecycle :errors])))))

(deftest refilling-on-renewal-is-caught-under-best-effort-too
  (testing "the emergency allowance E·H does not hide a holder that refills its bucket"
    (let [evil (assoc mh/honest
                      :renew? (fn [_ _] false)
                      :renewed (fn [l g t eps] (assoc ((:renewed mh/honest) l g t eps) :bal (double (:burst g)))))
          intents (fn [_ step] (if (even? step) :renew :admit))
          be (assoc-in opts [:tenants "t1"] {:rate 100 :burst 50 :mode :best-effort :emergency 15})
          r (c/check (c/lease-checker) {} (simulate evil intents) be)]
      (is (false? (get-in r [:admissions :valid?])) (pr-str (:admissions r)))
      (is (= :best-effort (get-in r [:admissions :tenants "t1" :mode])))
      (is (pos? (get-in r [:admissions :tenants "t1" :violation-count]))))))
