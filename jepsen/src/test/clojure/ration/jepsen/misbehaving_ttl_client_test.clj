(ns ration.jepsen.misbehaving-ttl-client-test
  "Evidence the TTL checkers bite: three clients drive the ttl workload's own op preparation
  (ttl/prepare-op) against a simulated correct TTL ledger (docs/TTL.md: expired iff now ≥
  expiresAt, one global version counter, cas expected 0 = absent or expired, refresh keeps the
  version, a lock is a cas from 0 whose version is its fencing token). Ledger time is the
  simulation's clock in ms. One client misbehaves on purpose (test-only; nothing changes in the
  server): it serves gets from a local cache past the entry's expiry and after newer writes, or
  it presents the fencing token of an earlier acquisition of a lock. The honest history passes
  the ttl checker; each misbehaving one fails the rule it breaks."
  (:require [clojure.test :refer [deftest is testing]]
            [ration.jepsen.checker :as c]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.ttl :as ttl]))

(def opts ttl/defaults)

(defn- live [e now] (when (and e (< now (:expires e))) e))

(defn- serve
  "The correct ledger's answer to op at ledger time now: [store' completion]."
  [store op now]
  (let [{:keys [key value ttl-ms expected-version lock token]} (:value op)
        v (:value op)
        e (live (get-in store [:entries key]) now)
        fresh (inc (:version store))]
    (case (:f op)
      :put [(-> store (assoc :version fresh) (assoc-in [:entries key] {:value value :version fresh :expires (+ now ttl-ms)}))
            (assoc op :type :ok :value (assoc v :version fresh :expires-at-ms (+ now ttl-ms)))]
      :cas (if (= expected-version (or (:version e) 0))
             [(-> store (assoc :version fresh) (assoc-in [:entries key] {:value value :version fresh :expires (+ now ttl-ms)}))
              (assoc op :type :ok :value (assoc v :version fresh :expires-at-ms (+ now ttl-ms)))]
             [store (assoc op :type :fail :error [:outcome :version_mismatch] :value (assoc v :current-version (or (:version e) 0)))])
      :refresh (if e
                 [(assoc-in store [:entries key :expires] (+ now ttl-ms))
                  (assoc op :type :ok :value (assoc v :version (:version e) :expires-at-ms (+ now ttl-ms)))]
                 [store (assoc op :type :fail :error [:outcome :entry_unknown])])
      :get [store (assoc op :type :ok :value (if e
                                               (assoc v :found? true :read-at-ms now :value (:value e) :version (:version e)
                                                      :expires-at-ms (:expires e))
                                               (assoc v :found? false :read-at-ms now)))]
      :lock (if (live (get-in store [:locks lock]) now)
              [store (assoc op :type :fail :error [:outcome :held])]
              [(-> store (assoc :version fresh) (assoc-in [:locks lock] {:version fresh :expires (+ now ttl-ms)}))
               (assoc op :type :ok :value (assoc v :token fresh :expires-at-ms (+ now ttl-ms)))])
      :unlock (let [l (live (get-in store [:locks lock]) now)]
                (if (= token (:version l))
                  [(update store :locks dissoc lock) (assoc op :type :ok :value (assoc v :released? true))]
                  [store (assoc op :type :fail :error [:outcome :version_mismatch])])))))

(defn- after
  "The thread's state after a completion, as TtlClient.invoke! keeps it."
  [s c]
  (let [v (:value c)]
    (cond-> s
      (and (= :ok (:type c)) (#{:put :cas :refresh :get} (:f c)) (:version v)) (assoc-in [:versions (:key v)] (:version v))
      (and (= :fail (:type c)) (= :cas (:f c))) (assoc-in [:versions (:key v)] (:current-version v 0))
      (and (= :ok (:type c)) (= :lock (:f c))) (assoc-in [:held (:lock v)] {:token (:token v)}))))

(defn simulate
  "Clients 0..2 act every 20 ms for 12 s (a get/put/cas/refresh/lock/unlock mix); client 0
  behaves as misbehaviour says: nil (honest), :cache (serves gets of a key from its cache for
  5 s after fetching it, reading 'now' correctly off the ledger's clock) or :reuse-token
  (reports the token of its first acquisition of a lock for every later one). -> history."
  [misbehaviour]
  (binding [gen/*rng* (java.util.Random. 11)]
    (let [intents [:get :get :get :put :put :cas :refresh :lock :unlock]
          store (atom {:version 0 :entries {} :locks {}})
          states (atom (into {} (for [p (range 3)] [p {:cid p :next 0 :opts opts :versions {} :held {}}])))
          cache (atom {})
          first-token (atom {})
          out (transient [])]
      (doseq [step (range 600), p (range 3)
              :let [now (+ (* 20 step) p)
                    [s op] (ttl/prepare-op (@states p) {:type :invoke :process p :f (gen/rand-nth* intents) :time (* now 1000000)})
                    cached (get @cache (get-in op [:value :key]))
                    c (if (and (= 0 p) (= :cache misbehaviour) (= :get (:f op)) cached (< (- now (:fetched cached)) 5000))
                        (assoc op :type :ok :value (assoc (:value op) :found? true :read-at-ms now :value (:value cached)
                                                          :version (:version cached) :expires-at-ms (:expires cached)))
                        (let [[store' c] (serve @store op now)] (reset! store store') c))
                    c (if (and (= 0 p) (= :reuse-token misbehaviour) (= :lock (:f c)) (= :ok (:type c)))
                        (let [l (get-in c [:value :lock])]
                          (swap! first-token #(if (contains? % l) % (assoc % l (get-in c [:value :token]))))
                          (assoc-in c [:value :token] (@first-token l)))
                        c)
                    c (assoc c :time (* (inc now) 1000000))]]
        (when (and (= 0 p) (= :get (:f c)) (get-in c [:value :found?]) (not (contains? @cache (get-in c [:value :key]))))
          (swap! cache assoc (get-in c [:value :key]) {:value (get-in c [:value :value]) :version (get-in c [:value :version])
                                                       :expires (get-in c [:value :expires-at-ms]) :fetched now}))
        (when (and cached (>= (- now (:fetched cached)) 5000))
          (swap! cache dissoc (get-in op [:value :key])))
        (swap! states assoc p (after s c))
        (conj! out op)
        (conj! out c))
      (h/index (persistent! out)))))

(defn results [misbehaviour] (c/check (c/ttl-checker) {} (simulate misbehaviour) opts))

(deftest honest-clients-pass
  (let [r (results nil)]
    (is (true? (:valid? r)) (pr-str r))
    (is (< 50 (get-in r [:freshness :found-reads])))
    (is (< 10 (reduce + (vals (get-in r [:fencing :acquisitions])))))))

(deftest serving-a-cached-value-is-caught
  (let [r (results :cache)
        kinds (set (map :kind (get-in r [:freshness :errors])))]
    (is (false? (:valid? r)))
    (is (false? (get-in r [:freshness :valid?])))
    (testing "past its expiry, and after a newer write"
      (is (contains? kinds :expired-read) (pr-str (:freshness r)))
      (is (contains? kinds :stale-read) (pr-str (:freshness r))))))

(deftest reusing-an-old-fencing-token-is-caught
  (let [r (results :reuse-token)]
    (is (false? (:valid? r)))
    (is (false? (get-in r [:fencing :valid?])))
    (is (some #{:token-not-increasing :duplicate-token} (map :kind (get-in r [:fencing :errors]))))))
