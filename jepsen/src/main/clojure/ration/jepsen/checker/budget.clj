(ns ration.jepsen.checker.budget
  "Checkers for the quota-budget workload (workload/budget.clj).

  :admissions — the amounts the holders admitted (ok :spend :admitted), summed at every level
  of the catalog the spend's scope path passes through, never exceed that level's limit: the
  whole run lies in one window (a fresh cluster's ledger time starts at 0, the quotas are by
  the day), and the quotas are hard, so no holder, partitioned, paused, restarted or with a
  drifting clock, may take a level past its limit.

  :billing — the usage log bills what was admitted: at every level the final :usage aggregate
  never exceeds what the holders admitted under it (a holder reports only what it admitted),
  and equals it exactly when every holder's :close returned its budgets (each return carries
  the final spend); a missing :usage read is :unknown."
  (:require [ration.jepsen.checker :as checker]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.budget :as budget]))

(defn- opts-of [test opts]
  (or (when (:catalog opts) opts) (:workload-opts test) (merge budget/defaults opts)))

(defn admitted-by-level
  "{level amount}: what ok :spend ops admitted, at every catalog level of their scope."
  [history catalog-levels]
  (reduce (fn [acc op]
            (let [{:keys [scope admitted]} (:value op)]
              (reduce (fn [a level] (update a level (fnil + 0) (or admitted 0)))
                      acc
                      (filter catalog-levels (budget/levels-of scope)))))
          (into (sorted-map) (for [l catalog-levels] [l 0]))
          (filter #(and (= :spend (:f %)) (h/ok? %)) (h/completions history))))

(defn admissions []
  (reify checker/Checker
    (check [_ test history opts]
      (let [o (opts-of test opts)
            limits (into {} (:catalog o))
            admitted (admitted-by-level history (set (keys limits)))
            over (into (sorted-map) (for [[l a] admitted :when (> a (limits l))] [l [a (limits l)]]))]
        {:valid? (empty? over)
         :admitted admitted
         :limits (into (sorted-map) limits)
         :over-limit over}))))

(defn billing []
  (reify checker/Checker
    (check [_ test history opts]
      (let [o (opts-of test opts)
            limits (into {} (:catalog o))
            admitted (admitted-by-level history (set (keys limits)))
            cs (h/completions history)
            closes (filter #(= :close (:f %)) cs)
            all-closed? (and (seq closes) (every? h/ok? closes))
            usage (some #(when (and (= :usage (:f %)) (h/ok? %)) (:levels (:value %))) cs)]
        (if (nil? usage)
          {:valid? :unknown :error "no :usage read completed"}
          (let [over (into (sorted-map) (for [[l a] admitted :when (> (get usage l 0) a)]
                                          [l [(get usage l 0) a]]))
                differ (into (sorted-map) (for [[l a] admitted :when (not= (get usage l 0) a)]
                                            [l [(get usage l 0) a]]))]
            {:valid? (and (empty? over) (or (not all-closed?) (empty? differ)))
             :all-closed? (boolean all-closed?)
             :billed usage
             :admitted admitted
             :billed-over-admitted over
             :billed-differs differ}))))))

(defn budget-checker
  "Everything the quota-budget workload is checked by."
  []
  (checker/compose {:admissions (admissions)
                    :billing (billing)
                    ;; Progress after the final heal: a holder's return and the usage read
                    ;; need the cluster (a :spend is decided locally, always ok).
                    :stats (checker/stats #{:close :usage})
                    :exceptions (checker/unhandled-exceptions)}))
