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
  every pool drained (a :drain :ok per pool that submitted)."
  (:require [ration.jepsen.checker :as checker]
            [ration.jepsen.history :as h]))

(defn- opts-of [test opts]
  (or (when (:concurrency opts) opts) (:workload-opts test) opts))

(defn runs
  "Every recorded job run: {:pool :job-id :attempt :start :end (nil: never ended) :cancelled?}."
  [history]
  (for [[inv c] (h/pairs history)
        :when (= :run (:f inv))]
    (merge (select-keys (:value inv) [:pool :job-id :attempt])
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

(defn concurrency
  []
  (reify checker/Checker
    (check [_ test history opts]
      (let [c (:concurrency (opts-of test opts))
            rs (vec (runs history))
            overruns (overrun-set history)
            end-of-history (reduce max 0 (map :time history))
            events (->> rs
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
                              (if (and (= 1 kind) (> honest c))
                                (update s :violations conj {:time-s (/ t 1e9) :running n :counted honest :C c
                                                            :job (select-keys r [:pool :job-id])})
                                s)))
                          {:n 0 :honest 0 :peak nil :violations []}
                          events)
            peak (get-in sweep [:peak :running] 0)
            unended (filterv (comp nil? :end) rs)
            bound (+ c (count overruns))]
        {:valid? (boolean (and c (empty? (:violations sweep)) (<= peak bound) (empty? unended)))
         :C c
         :runs (count rs)
         :cancelled-runs (count (filter :cancelled? rs))
         :peak (:peak sweep)
         :overruns (count overruns)
         :bound bound
         :violation-count (count (:violations sweep))
         :violations (vec (take 5 (:violations sweep)))
         :unended (vec (take 5 unended))
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
