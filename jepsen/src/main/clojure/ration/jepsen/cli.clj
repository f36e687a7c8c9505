(ns ration.jepsen.cli
  "Command line: test (one workload × one nemesis), test-all (a matrix), check <history.edn>.
  Prints :valid? and exits non-zero when a run is not valid (1: false; 2: usage; 3: unknown
  only with --strict)."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.pprint :refer [pprint]]
            [clojure.string :as str]
            [clojure.tools.cli :as tcli]
            [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.checker :as checker]
            [ration.jepsen.checker.budget :as budget-checker]
            [ration.jepsen.checker.pool :as pool-checker]
            [ration.jepsen.checker.reservation :as reservation-checker]
            [ration.jepsen.core :as core]
            [ration.jepsen.history :as h]
            [ration.jepsen.nemesis :as nemesis]
            [ration.jepsen.net :as net]
            [ration.jepsen.workload.budget :as budget]
            [ration.jepsen.workload.lease :as lease]
            [ration.jepsen.workload.pool :as pool]
            [ration.jepsen.workload.reservation :as reservation]
            [ration.jepsen.workload.ttl :as ttl])
  (:gen-class))

(def workloads
  "Workload registry: name -> (fn [opts] {:name :opts :client :generator :final-generator})
  and its checker."
  {:lease {:workload lease/workload :checker checker/lease-checker}
   ;; Holders also send returns of their live lease presenting a stale version under fresh
   ;; request ids (past any idempotency retention): conservation must hold.
   :lease-stale-returns {:workload #(lease/workload (assoc % :stale-returns true))
                         :checker checker/lease-checker}
   :reservation {:workload reservation/workload :checker reservation-checker/reservation-checker}
   :ttl {:workload ttl/workload :checker checker/ttl-checker}
   ;; Gets through each client's near cache (a watch keeps it current): the freshness checker
   ;; with the cache's staleness bound.
   :ttl-near-cache {:workload #(ttl/workload (assoc % :near-cache? true)) :checker checker/ttl-checker}
   :pool {:workload pool/workload :checker pool-checker/pool-checker}
   :quota-budget {:workload budget/workload :checker budget-checker/budget-checker}
   ;; Holder 0 admits every spend without its budgets: expected :valid? false.
   :quota-budget-rogue {:workload #(budget/workload (assoc % :rogue-holders #{0}))
                        :checker budget-checker/budget-checker}
   ;; Soft quotas: every level with an overdraft E per holder; holders cut off may overdraw.
   :quota-budget-soft {:workload #(budget/workload (merge budget/soft-opts %))
                       :checker budget-checker/budget-checker}
   ;; ... with holder 0 admitting every spend without its budgets: expected :valid? false.
   :quota-budget-soft-rogue {:workload #(budget/workload (merge budget/soft-opts (assoc % :rogue-holders #{0})))
                             :checker budget-checker/budget-checker}
   ;; Pool 0 ignores its slot lease: expected :valid? false (the checker must bite).
   :pool-rogue {:workload #(pool/workload (assoc % :rogue-pools #{0})) :checker pool-checker/pool-checker}
   ;; Pools on slot budgets of CONCURRENT quotas at every level of a scope path (org, tenant,
   ;; projects), billed per attempt started.
   :pool-quota {:workload #(pool/workload (merge pool/quota-opts %)) :checker pool-checker/pool-quota-checker}
   ;; ... with pool 0 ignoring its slot budget: expected :valid? false.
   :pool-quota-rogue {:workload #(pool/workload (merge pool/quota-opts (assoc % :rogue-pools #{0})))
                      :checker pool-checker/pool-quota-checker}})

(def misbehaving-workloads
  "Workloads that break the rules on purpose, to show a checker bites: never in a matrix."
  #{:pool-rogue :pool-quota-rogue :quota-budget-rogue :quota-budget-soft-rogue})

(def variant-workloads
  "Variants of a workload that run in the CI matrix, not as rows of the full one."
  #{:lease-stale-returns :ttl-near-cache})

(def pool-ci-cells
  "The pool workload under partitions between nodes, between the pools and the cluster, kills
  and pauses."
  [[:pool :partition-majority] [:pool :partition-clients] [:pool :kill] [:pool :pause-leader]])

(def ci-matrix
  ;; membership-kill: a voter removed and wiped, then added back empty, inside kill windows.
  ;; quota-budget: holders cut off from the cluster keep spending only what their budgets hold;
  ;; quota-budget-soft: ... or up to their overdraft more, billed as overage (about 1 minute);
  ;; pool-quota: pools on slot budgets of a scope path cut off from the cluster, every level's
  ;; cap held and every attempt billed (about 50 s).
  (into [[:lease :partition-leader] [:lease :pause-leader] [:lease :kill] [:lease :clock-bump] [:lease :lossy]
         [:lease :membership-kill] [:lease-stale-returns :pause-leader]
         [:ttl-near-cache :partition-leader] [:quota-budget :partition-clients]
         [:quota-budget :clock-bump] [:quota-budget-soft :partition-clients]]
        (conj pool-ci-cells [:pool-quota :partition-clients])))

(def full-nemeses
  "Every nemesis, in the order the full matrix runs them (bridge and ring need 5 nodes)."
  [:partition-leader :partition-one :partition-majority :partition-one-way :lossy
   :kill :kill-all :pause-leader :pause :clock-bump :clock-strobe :clock-rate-within :clock-rate-beyond :mixed
   :partition-clients :membership :membership-kill :membership-partition])

(defn full-matrix
  "Every workload × every nemesis for a node count: 7 × 18 cells with 3 nodes, 7 × 20 with 5
  (+ partition-bridge and partition-ring); the rows: lease, pool, pool-quota, quota-budget,
  quota-budget-soft, reservation, ttl. With only-workloads, those workloads' rows only."
  ([nodes] (full-matrix nodes nil))
  ([nodes only-workloads]
   (vec (for [w (sort (remove (into misbehaving-workloads variant-workloads) (keys workloads)))
              :when (or (empty? only-workloads) (some #{w} only-workloads))
              n (concat full-nemeses (when (= 5 nodes) [:partition-bridge :partition-ring]))]
          [w n]))))

(defn resolve-mode
  "{:netns? bool :mode kw}: netns when root and namespaces work, else loopback."
  [mode]
  (case mode
    :netns {:netns? true :mode :netns}
    :loopback {:netns? false :mode :loopback}
    (if (net/netns-available?) {:netns? true :mode :netns} {:netns? false :mode :loopback})))

(defn build-test
  "A test map from options."
  [{:keys [workload nemesis nodes time-limit seed rate concurrency interval hold netns? store quiet recovery-timeout
           start-timeout]
    :or {nodes 3 time-limit 60 seed 0 rate 40 interval 8 hold 8 store "store" quiet 10 recovery-timeout 90
         start-timeout 90}}]
  (let [{wf :workload cf :checker} (or (workloads workload)
                                       (throw (IllegalArgumentException. (str "unknown workload " workload "; known: " (keys workloads)))))
        w (wf {})
        node-names (mapv #(keyword (str "n" %)) (range 1 (inc nodes)))]
    (when (and (not netns?) (or (nemesis/network-faults nemesis)))
      (throw (IllegalArgumentException. (str "nemesis " nemesis " needs netns mode (root + ip netns)"))))
    {:name (str (:name w) "-" (name nemesis) "-n" nodes (when-not netns? "-loopback"))
     :workload-name workload
     :nemesis-name nemesis
     :nodes node-names
     :concurrency (or concurrency (* 2 nodes))
     :time-limit time-limit
     :rate rate
     :seed seed
     :quiet-s quiet
     :start-timeout-s start-timeout
     :netns? netns?
     :store-root store
     :workload w
     ;; A cell that removes and adds nodes is also judged on the end: every node a live voter.
     :checker (if (nemesis/membership-faults nemesis)
                (checker/compose {:workload (cf) :members (checker/members)})
                (cf))
     :nemesis-package (nemesis/nemesis-package nemesis {:interval interval :hold hold :netns? netns?
                                                        :recovery-s recovery-timeout})}))

(defn run-test!
  "Runs one cell; returns {:name :valid? :dir :seconds :summary}, plus :failures (each invalid
  checker's result, cut to 2,000 characters) so a run whose store is gone (a CI machine's) can
  still be diagnosed from its printed result."
  [opts]
  (let [t0 (System/nanoTime)
        r (core/run! (build-test opts))]
    {:name (:name r)
     :valid? (get-in r [:results :valid?])
     :expected-unsafe? (contains? nemesis/expected-unsafe (:nemesis opts))
     :dir (:store-dir r)
     :seconds (long (/ (- (System/nanoTime) t0) 1e9))
     :summary (into {} (for [[k v] (:results r) :when (map? v)] [k (:valid? v)]))
     :failures (into {} (for [[k v] (:results r) :when (and (map? v) (false? (:valid? v)))]
                          [k (let [s (pr-str v)] (subs s 0 (min 2000 (count s))))]))}))

(defn run-matrix!
  "Runs cells [[workload nemesis] ...] with shared opts; returns a vector of results. Network
  nemeses are skipped (reported :skipped) in loopback mode."
  [cells opts]
  (vec (for [[w n] cells]
         (if (and (not (:netns? opts)) (or (nemesis/network-faults n)))
           {:name (str (name w) "-" (name n) "-n" (:nodes opts 3)) :valid? :skipped :reason "needs netns mode"}
           (try (run-test! (assoc opts :workload w :nemesis n))
                (catch Throwable t
                  (warn t "cell failed to run" w n)
                  {:name (str (name w) "-" (name n) "-n" (:nodes opts 3)) :valid? :unknown :error (str t)}))))))

(def cli-options
  [[nil "--workload NAME" "Workload: lease, reservation, ttl, pool, pool-quota, quota-budget, quota-budget-soft, pool-rogue, pool-quota-rogue, quota-budget-rogue and quota-budget-soft-rogue (expected invalid)" :default :lease :parse-fn keyword]
   [nil "--nemesis NAME" "Nemesis: none, partition-leader, partition-one, partition-majority, partition-one-way, partition-bridge, partition-ring (5 nodes), lossy, kill, kill-all, pause-leader, pause, clock-bump, clock-strobe, clock-rate-within, clock-rate-beyond (expected unsafe), partition-clients, membership, membership-kill, membership-partition, mixed; membership-rogue (breaks the procedure on purpose: expected invalid)"
    :default :partition-leader :parse-fn keyword]
   [nil "--nodes N" "3 or 5; test-all also takes 3,5 (both matrices in turn)" :default [3]
    :parse-fn #(mapv parse-long (str/split % #","))
    :validate [#(and (seq %) (every? #{3 5} %)) "must be 3, 5 or 3,5"]]
   [nil "--time-limit SECONDS" "Workload duration" :default 60 :parse-fn parse-long]
   [nil "--seed N" "Random seed (recorded in test.edn)" :default 0 :parse-fn parse-long]
   [nil "--rate HZ" "Client ops per second (total)" :default 40 :parse-fn parse-double]
   [nil "--concurrency N" "Client threads (default 2n)" :parse-fn parse-long]
   [nil "--interval SECONDS" "Between faults" :default 8 :parse-fn parse-long]
   [nil "--hold SECONDS" "Fault duration (> lease TTL + election timeout)" :default 8 :parse-fn parse-long]
   [nil "--quiet SECONDS" "Quiet period after recovery, before the final reads" :default 10 :parse-fn parse-long]
   [nil "--recovery-timeout SECONDS" "After the final heal, wait at most this long for every node /ready + a leader"
    :default 90 :parse-fn parse-long]
   [nil "--start-timeout SECONDS" "At setup, wait at most this long for a leader after starting the nodes"
    :default 90 :parse-fn parse-long]
   [nil "--mode MODE" "auto, netns or loopback" :default :auto :parse-fn keyword]
   [nil "--matrix NAME" "test-all: ci or full" :default :ci :parse-fn keyword]
   [nil "--workloads NAMES" "test-all --matrix full: only these workloads' rows (comma-separated, e.g. reservation,ttl)"
    :parse-fn #(mapv keyword (str/split % #","))
    :validate [#(every? (set (keys workloads)) %) "unknown workload"]]
   [nil "--store DIR" "Store root" :default "store"]
   ["-h" "--help"]])

(defn- usage [summary]
  (str "usage: ration.jepsen.cli test|test-all|check [options]\n"
       "  test      one workload x one nemesis\n"
       "  test-all  the matrix (--matrix ci|full)\n"
       "  check H   re-check a stored history.edn (reads test.edn beside it)\n\n" summary))

(defn check-file
  "Re-checks a stored history; returns the results."
  [path]
  (let [f (io/file path)
        test-file (io/file (.getParentFile (.getAbsoluteFile f)) "test.edn")
        test (if (.exists test-file) (edn/read-string (slurp test-file)) {})
        wl (or (:workload-name test) :lease)
        opts (or (:workload-opts test) (:opts ((:workload (workloads wl)) {})))
        history (h/read-edn f)]
    (checker/check ((:checker (workloads wl))) test history opts)))

(defn exit-code
  "1 when a cell is :valid? false, unless its nemesis is expected to break (reported only)."
  [results]
  (cond (some #(and (false? (:valid? %)) (not (:expected-unsafe? %))) results) 1 :else 0))

(defn -main [& args]
  (let [{:keys [options arguments summary errors]} (tcli/parse-opts args cli-options)
        cmd (first arguments)]
    (when (or errors (:help options) (nil? cmd))
      (println (str/join "\n" errors))
      (println (usage summary))
      (System/exit (if (:help options) 0 2)))
    (let [code
          (case cmd
            "test" (let [m (resolve-mode (:mode options))
                         r (run-test! (merge options m {:store (:store options) :nodes (first (:nodes options))}))]
                     (pprint r)
                     (println ":valid?" (:valid? r))
                     (exit-code [r]))
            "test-all" (let [m (resolve-mode (:mode options))
                             t0 (System/nanoTime)
                             rs (vec (mapcat (fn [nodes]
                                               (run-matrix! (if (= :full (:matrix options)) (full-matrix nodes (:workloads options)) ci-matrix)
                                                            (merge options m {:nodes nodes})))
                                             (:nodes options)))
                             summary (io/file (:store options) (str "matrix-" (name (:matrix options)) "-"
                                                                    (.format (java.time.LocalDateTime/now)
                                                                             (java.time.format.DateTimeFormatter/ofPattern "yyyyMMdd'T'HHmmss"))
                                                                    ".edn"))]
                         (.mkdirs (io/file (:store options)))
                         (spit summary (with-out-str (pprint {:options (select-keys options [:matrix :nodes :time-limit :seed :mode])
                                                              :seconds (long (/ (- (System/nanoTime) t0) 1e9))
                                                              :cells rs})))
                         (doseq [r rs] (println (format "%-44s %-8s %5ss  %s" (:name r) (str (:valid? r) (when (:expected-unsafe? r) " (expected unsafe)")) (or (:seconds r) "-") (or (:dir r) (:reason r) ""))))
                         (println "summary:" (str summary))
                         (exit-code rs))
            "check" (let [r (check-file (or (second arguments) (throw (IllegalArgumentException. "check needs a history.edn path"))))]
                      (pprint r)
                      (println ":valid?" (:valid? r))
                      (exit-code [r]))
            (do (println (usage summary)) 2))]
      (shutdown-agents)
      (System/exit code))))
