(ns ration.jepsen.checker.pool
  "Checkers for the pool workload (workload/pool.clj, docs/POOL.md \"The global cap\").

  :concurrency — the jobs' own records (:run invocation at start, completion at end, harness
  monotonic clock) swept in time order, ends before starts at equal times. At every instant the
  jobs running that their pools did not report as overruns number at most C; the maximum over
  the whole run of all running jobs is at most C plus the overruns reported. A run with no
  recorded end (the job never returned) counts as running to the end of the history and is
  itself invalid. Reports the peak and when it happened, per pool.

  :jobs — every accepted job (:submit :job-ids) reached exactly one terminal state (the :drain
  results name it, none is :unterminated); its number of :run records equals the attempts its
  result reports; no job ran that was never accepted; a job cancelled while queued
  (:state-before :queued, :was-live? true) has no run starting after the cancel completed;
  every pool drained (a :drain :ok per pool that submitted).

  pool-quota (slot budgets on CONCURRENT quotas at every level of a scope path):
  :level-concurrency is the :concurrency sweep per catalog level over the runs of the pools
  under it, against the level's cap; :billing holds the final usage read to the attempts the
  pools started (see its doc)."
  (:require [clojure.string :as str]
            [ration.jepsen.checker :as checker]
            [ration.jepsen.history :as h]))

(defn- opts-of [test opts]
  (or (when (:concurrency opts) opts) (:workload-opts test) opts))

(defn runs
  "Every recorded job run: {:pool :job-id :attempt :start :end (nil: never ended) :cancelled?}
  (+ :scope for quota slots)."
  [history]
  (for [[inv c] (h/pairs history)
        :when (= :run (:f inv))]
    (merge (select-keys (:value inv) [:pool :job-id :attempt :scope])
           {:start (:time inv) :end (:time c) :cancelled? (get-in c [:value :cancelled?])})))

(defn- drains [history]
  (->> (h/completions history)
       (filter #(and (= :drain (:f %)) (h/ok? %)))
       (group-by #(get-in % [:value :pool]))))

(defn overrun-set
  "#{[pool job-id]} of every job its pool reported as an overrun (result flag or overrun ids)."
  [history]
  (set (for [[pool ds] (drains history)
             d ds
             id (concat (:overrun-ids (:value d))
                        (keep (fn [[id [_ _ over?]]] (when over? id)) (:results (:value d))))]
         [pool id])))

(defn sweep
  "Sweeps runs (ends before starts at equal times) against cap: {:peak {:time-s :running :honest}
  :violations [...] :unended [...] :bound :valid?}. overruns is the set of [pool job-id] the
  pools reported; a run with no end runs to end-of-history (and is itself invalid). At every
  instant the runs not reported as overruns number at most cap; the peak of all is at most cap
  plus the overruns among these runs."
  [rs overruns cap end-of-history]
  (let [events (->> rs
                    (mapcat (fn [r]
                              (let [over? (contains? overruns [(:pool r) (:job-id r)])]
                                [[(:start r) 1 r over?] [(or (:end r) (inc end-of-history)) 0 r over?]])))
                    (sort-by (juxt first second)))
        sweep (reduce (fn [{:keys [n honest] :as s} [t kind r over?]]
                        (let [d (if (= 1 kind) 1 -1)
                              n (+ n d)
                              honest (if over? honest (+ honest d))
                              s (assoc s :n n :honest honest)
                              s (if (> n (get-in s [:peak :running] 0))
                                  (assoc s :peak {:time-s (/ t 1e9) :running n :honest honest})
                                  s)]
                          (if (and (= 1 kind) (> honest cap))
                            (update s :violations conj {:time-s (/ t 1e9) :running n :counted honest :cap cap
                                                        :job (select-keys r [:pool :job-id])})
                            s)))
                      {:n 0 :honest 0 :peak nil :violations []}
                      events)
        peak (get-in sweep [:peak :running] 0)
        unended (filterv (comp nil? :end) rs)
        over-here (count (filter #(contains? overruns [(:pool %) (:job-id %)]) rs))
        bound (+ cap over-here)]
    {:valid? (boolean (and (empty? (:violations sweep)) (<= peak bound) (empty? unended)))
     :peak (:peak sweep)
     :overruns over-here
     :bound bound
     :violations (:violations sweep)
     :unended unended}))

(defn concurrency
  []
  (reify checker/Checker
    (check [_ test history opts]
      (let [c (:concurrency (opts-of test opts))
            rs (vec (runs history))
            overruns (overrun-set history)
            s (sweep rs overruns (or c 0) (reduce max 0 (map :time history)))]
        {:valid? (boolean (and c (:valid? s)))
         :C c
         :runs (count rs)
         :cancelled-runs (count (filter :cancelled? rs))
         :peak (:peak s)
         :overruns (count overruns)
         :bound (+ (or c 0) (count overruns))
         :violation-count (count (:violations s))
         :violations (vec (take 5 (:violations s)))
         :unended (vec (take 5 (:unended s)))
         :runs-per-pool (into (sorted-map) (frequencies (map :pool rs)))}))))

(defn jobs
  []
  (reify checker/Checker
    (check [_ _ history _]
      (let [cs (h/completions history)
            accepted (set (for [c cs :when (and (= :submit (:f c)) (h/ok? c))
                                id (get-in c [:value :job-ids])]
                            [(get-in c [:value :pool]) id]))
            submitting-pools (set (map first accepted))
            ds (drains history)
            results (into {} (for [[pool dd] ds, d dd, [id r] (:results (:value d))] [[pool id] r]))
            unterminated (vec (for [[pool dd] ds, d dd, id (:unterminated (:value d))] [pool id]))
            undrained (vec (remove #(contains? ds %) submitting-pools))
            no-result (if (seq undrained) [] (vec (remove #(contains? results %) accepted)))
            rs (runs history)
            runs-by-job (group-by (juxt :pool :job-id) rs)
            never-accepted (vec (remove #(contains? accepted %) (keys runs-by-job)))
            attempts-mismatch (vec (for [[k [_ attempts _]] results
                                         :let [n (count (get runs-by-job k))]
                                         :when (not= n attempts)]
                                     {:job k :runs n :attempts attempts}))
            ran-after-cancel (vec (for [c cs
                                        :when (and (= :cancel (:f c)) (h/ok? c)
                                                   (= :queued (get-in c [:value :state-before]))
                                                   (get-in c [:value :was-live?]))
                                        :let [k [(get-in c [:value :pool]) (get-in c [:value :job-id])]]
                                        r (get runs-by-job k)
                                        :when (> (:start r) (:time c))]
                                    {:job k :cancelled-at-s (/ (:time c) 1e9) :started-at-s (/ (:start r) 1e9)}))
            states (frequencies (map first (vals results)))]
        {:valid? (and (empty? unterminated) (empty? undrained) (empty? no-result) (empty? never-accepted)
                      (empty? attempts-mismatch) (empty? ran-after-cancel))
         :accepted (count accepted)
         :terminal-states (into (sorted-map) states)
         :unterminated (vec (take 5 unterminated))
         :undrained-pools undrained
         :without-result (vec (take 5 no-result))
         :runs-never-accepted (vec (take 5 never-accepted))
         :attempts-mismatch (vec (take 5 attempts-mismatch))
         :ran-after-cancel (vec (take 5 ran-after-cancel))}))))

(defn pool-checker
  "Everything the pool workload is checked by."
  []
  (checker/compose {:concurrency (concurrency)
                    :jobs (jobs)
                    ;; Progress means jobs ran again after the final heal, not just queued.
                    :stats (checker/stats #{:run})
                    :exceptions (checker/unhandled-exceptions)}))

;; ------------------------------------------------------------- quota slots (pool-quota)

(defn- quota-opts-of [test opts]
  (:quota (or (when (:quota opts) opts) (:workload-opts test) opts)))

(defn- levels-of
  "The levels of a scope path: its prefixes, org first."
  [scope]
  (let [parts (str/split scope #"/")]
    (mapv #(str/join "/" (take % parts)) (range 1 (inc (count parts))))))

(defn- under?
  "Whether a run (or anything with :scope) counts at level."
  [level x]
  (boolean (some #{level} (levels-of (:scope x)))))

(defn level-concurrency
  "pool-quota: the :concurrency sweep at every level of the catalog, over the runs of the pools
  whose scope path passes through it (each run carries its pool's :scope): at every instant
  the runs not reported as overruns number at most the level's cap, and the peak of all is at
  most the cap plus the overruns reported among them. Reported per level: cap, runs, peak (time,
  running), overruns, bound, violations."
  []
  (reify checker/Checker
    (check [_ test history opts]
      (let [{:keys [catalog]} (quota-opts-of test opts)
            rs (vec (runs history))
            overruns (overrun-set history)
            end (reduce max 0 (map :time history))
            unscoped (filterv (comp nil? :scope) rs)
            levels (into (sorted-map)
                         (for [[level cap] catalog
                               :let [lrs (filterv #(and (:scope %) (under? level %)) rs)
                                     s (sweep lrs overruns cap end)]]
                           [level {:valid? (:valid? s) :cap cap :runs (count lrs)
                                   :peak (:peak s) :overruns (:overruns s) :bound (:bound s)
                                   :violation-count (count (:violations s))
                                   :violations (vec (take 5 (:violations s)))
                                   :unended (vec (take 5 (:unended s)))}]))]
        {:valid? (boolean (and (seq catalog) (empty? unscoped) (every? :valid? (vals levels))))
         :levels levels
         :peak-per-level (into (sorted-map) (for [[l r] levels] [l [(get-in r [:peak :running] 0) (:cap r)]]))
         :overruns (count overruns)
         :runs (count rs)
         :cancelled-runs (count (filter :cancelled? rs))
         :runs-without-scope (count unscoped)
         :runs-per-scope (into (sorted-map) (frequencies (map :scope rs)))}))))

(defn billing
  "pool-quota: the usage log bills every attempt the pools started (docs/QUOTAS.md,
  \"Concurrent quotas: slot budgets\", Billing), at every level the final :usage read names
  (catalog levels and pool scopes; an aggregate counts its descendants):

    billed ≤ attempts        always: an attempt is one :run record (one attempt per job), and
                             nothing else is billed on the resource;
    attempts − billed ≤ L    where L = the runs of that level's pools that started in a window
                             [e − lease − slack, t + slack] around a recorded loss t of their
                             pool's budget (a :slots-lost op) whose lease ended locally at e
                             (t minus the op's :end-ago-ms; t when it has none).

  Why the second bound is what is sound: each report carries the budget's cumulative starts,
  so the only starts never billed are those after the last report or return that reached the
  cluster. The docs name when that happens: the process died (not here: the harness lives and
  every pool drains and closes after the heal, its return answered), or a budget was lost while
  its pool could not reach the cluster and that return (sent once) did not get through either.
  Such a budget's unbilled starts came after its last answered report was sent (S); the pool
  holds it until its local end e ≤ S + lease·(1 − 2 %) and starts nothing after e, so they lie
  within [e − lease, e]; the loss is recorded at e or later (a renewal in flight at e fails only
  at its deadline, and a loaded machine runs the pool's threads late), which is why the window
  is anchored at e, as the pool saw it. slack = the op timeout (3 s). An exact equality is required where no budget of the level's
  pools was lost; a pool that never drained (never returned its budget) leaves its level's
  lower bound unchecked (the :jobs checker fails that run anyway). No :usage read: :unknown.
  When the read also replayed the whole usage log (:replayed, complete), each level's aggregate
  must equal the sum of the replayed events at or under it.
  Reports per level: attempts, billed, unbilled, the allowance, and leases lost."
  []
  (reify checker/Checker
    (check [_ test history opts]
      (let [q (quota-opts-of test opts)
            o (or (when (:quota opts) opts) (:workload-opts test) opts)
            lease-ns (* 1000000 (long (:lease-ms o 3000)))
            slack-ns (* 1000000 (long (:op-timeout-ms o 3000)))
            cs (h/completions history)
            usage (->> cs (filter #(and (= :usage (:f %)) (h/ok? %))) last)
            rs (vec (runs history))
            losses (->> history (filter #(and (= :slots-lost (:f %)) (h/invoke? %)))
                        (map (fn [op] {:pool (get-in op [:value :pool]) :time (:time op)
                                       :end (- (:time op) (* 1000000 (max 0 (long (get-in op [:value :end-ago-ms] 0)))))})))
            losses-by-pool (group-by :pool losses)
            in-window? (fn [r] (some (fn [{t :time e :end}] (<= (- e lease-ns slack-ns) (:start r) (+ t slack-ns)))
                                     (get losses-by-pool (:pool r))))
            drained (set (keys (drains history)))
            undrained (set (remove drained (distinct (map :pool rs))))]
        (if-not usage
          {:valid? :unknown :error "no :usage read completed"
           :attempts (count rs) :leases-lost (count losses)}
          (let [levels (into (sorted-map)
                             (for [[level billed] (get-in usage [:value :levels])
                                   :let [lrs (filter #(and (:scope %) (under? level %)) rs)
                                         attempts (count lrs)
                                         allowance (count (filter in-window? lrs))
                                         lost (count (filter #(under? level %) (for [op history
                                                                                      :when (and (= :slots-lost (:f op)) (h/invoke? op))]
                                                                                  (:value op))))
                                         open? (boolean (some #(contains? undrained (:pool %)) lrs))
                                         unbilled (- attempts billed)
                                         replay (when (get-in usage [:value :complete?])
                                                  (get-in usage [:value :replayed level]))
                                         agree? (or (nil? replay) (= replay billed))]]
                               [level (cond-> {:attempts attempts :billed billed :unbilled unbilled
                                               :allowance allowance :leases-lost lost
                                               :valid? (and (<= billed attempts) agree?
                                                            (or open? (<= unbilled allowance)))}
                                        replay (assoc :replayed replay)
                                        (not agree?) (assoc :aggregate-disagrees-with-replay true)
                                        open? (assoc :pools-not-closed true)
                                        (> billed attempts) (assoc :error :billed-more-than-started)
                                        (and (not open?) (> unbilled allowance))
                                        (assoc :error (if (zero? allowance)
                                                        :unbilled-without-a-lost-budget
                                                        :unbilled-beyond-the-lost-budgets)))]))]
            {:valid? (every? :valid? (vals levels))
             :levels levels
             :attempts-vs-billed (into (sorted-map) (for [[l r] levels] [l [(:attempts r) (:billed r)]]))
             :leases-lost (count losses)
             :leases-lost-per-pool (into (sorted-map) (for [[p ls] losses-by-pool] [p (count ls)]))}))))))

(defn pool-quota-checker
  "Everything the pool-quota workload is checked by."
  []
  (checker/compose {:level-concurrency (level-concurrency)
                    :billing (billing)
                    :jobs (jobs)
                    :stats (checker/stats #{:run})
                    :exceptions (checker/unhandled-exceptions)}))
