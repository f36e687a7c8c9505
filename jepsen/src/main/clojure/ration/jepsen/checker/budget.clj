(ns ration.jepsen.checker.budget
  "Checkers for the quota-budget workloads (workload/budget.clj).

  :admissions — the amounts the holders admitted (ok :spend :admitted), summed at every level
  of the catalog the spend's scope path passes through, never exceed that level's bound: the
  whole run lies in one window (a fresh cluster's ledger time starts at 0, the quotas are by
  the day). A hard level's bound is its limit: no holder, partitioned, paused, restarted or
  with a drifting clock, may take it past. A soft level (catalog entry [scope limit E], E > 0)
  may be overdrawn by holders cut off from the cluster (docs/QUOTAS.md, \"Soft quotas\"): its
  bound is limit + Σ E(p) over the (holder, scope path p) pairs under it in the history, E(p)
  the smallest overdraft of p's levels (0 when one is hard: a budget carries that). One budget
  per holder and path at a time, each overdrawn by at most its E; a budget overdrawn, reported
  and then replaced took its successor's grant from what the level still had after counting the
  overdraft (a level past its limit grants nothing more), so only the last budget of a pair can
  leave the level past its limit, and Σ over the pairs bounds what is past it. With one path per
  holder (quota-budget-soft) that is the documented limit + E × holders. Reported beside it:
  what each level admitted past its limit (:beyond-limit, the overdraft that took it past) and
  what the limiters say they admitted from overdrafts (:overdrawn, from each :spend's
  :overdrawn); invalid too: an overdraft admitted on a path with a hard level.

  :billing — the usage log bills what was admitted: at every level the final :usage aggregate
  never exceeds what the holders admitted under it (a holder reports only what it admitted),
  and equals it exactly when every holder's :close returned its budgets (each return carries
  the final spend). A budget's BUDGET_SPENT event counts the whole new spend, its overdrawn part
  included (flagged as billable overage), so overdrafts are in the aggregate and the equality
  holds for soft quotas as for hard. When the read carries the usage log's overage per level
  (soft catalogs), the overage billed at a level never exceeds what the limiters overdrew under
  it (the ledger bills as overage a spend past its own grant, which is never below the
  limiter's). A missing :usage read is :unknown."
  (:require [ration.jepsen.checker :as checker]
            [ration.jepsen.history :as h]
            [ration.jepsen.workload.budget :as budget]))

(defn- opts-of [test opts]
  (or (when (:catalog opts) opts) (:workload-opts test) (merge budget/defaults opts)))

(defn limits-of
  "{level limit} of a catalog."
  [catalog]
  (into (sorted-map) (for [[scope limit] catalog] [scope limit])))

(defn overdrafts-of
  "{level E} of a catalog (0: hard)."
  [catalog]
  (into (sorted-map) (for [entry catalog] [(first entry) (budget/overdraft-of entry)])))

(defn path-overdraft
  "The overdraft a budget at scope carries: the smallest E among the levels of its path that
  have an entry (0 when one of them is hard)."
  [overdrafts scope]
  (let [es (keep overdrafts (budget/levels-of scope))]
    (if (seq es) (apply min es) 0)))

(defn- spends [history]
  (filter #(and (= :spend (:f %)) (h/ok? %)) (h/completions history)))

(defn- sum-by-level
  "{level Σ (f op)} over ops, at every catalog level of each op's scope."
  [ops catalog-levels f]
  (reduce (fn [acc op]
            (let [v (or (f op) 0)]
              (reduce (fn [a level] (update a level (fnil + 0) v))
                      acc
                      (filter catalog-levels (budget/levels-of (get-in op [:value :scope]))))))
          (into (sorted-map) (for [l catalog-levels] [l 0]))
          ops))

(defn admitted-by-level
  "{level amount}: what ok :spend ops admitted, at every catalog level of their scope."
  [history catalog-levels]
  (sum-by-level (spends history) catalog-levels #(get-in % [:value :admitted])))

(defn overdrawn-by-level
  "{level amount}: what ok :spend ops admitted from an overdraft (the limiter's own count)."
  [history catalog-levels]
  (sum-by-level (spends history) catalog-levels #(get-in % [:value :overdrawn])))

(defn holder-pairs
  "#{[holder scope]}: every holder and scope path a :spend was invoked for. The holder is the
  op's :holder (the thread), else its process (never fewer holders than there were)."
  [history]
  (into #{} (for [op history
                  :when (and (= :spend (:f op)) (h/invoke? op) (get-in op [:value :scope]))]
              [(or (get-in op [:value :holder]) (:process op)) (get-in op [:value :scope])])))

(defn bounds
  "{level {:limit :overdraft :holders :slack :bound}}: a level's bound is its limit plus the
  overdraft E(p) of every (holder, path p) pair under it (0 for hard paths)."
  [history catalog]
  (let [limits (limits-of catalog)
        ods (overdrafts-of catalog)
        pairs (holder-pairs history)]
    (into (sorted-map)
          (for [[level limit] limits
                :let [under (filter (fn [[_ scope]] (some #{level} (budget/levels-of scope))) pairs)
                      slack (reduce + 0 (map (fn [[_ scope]] (path-overdraft ods scope)) under))]]
            [level {:limit limit :overdraft (ods level) :holders (count under) :slack slack
                    :bound (+ limit slack)}]))))

(defn admissions []
  (reify checker/Checker
    (check [_ test history opts]
      (let [o (opts-of test opts)
            catalog (:catalog o)
            limits (limits-of catalog)
            ods (overdrafts-of catalog)
            levels (set (keys limits))
            b (bounds history catalog)
            admitted (admitted-by-level history levels)
            overdrawn (overdrawn-by-level history levels)
            over (into (sorted-map) (for [[l a] admitted :when (> a (get-in b [l :bound]))]
                                      [l [a (get-in b [l :bound])]]))
            beyond (into (sorted-map) (for [[l a] admitted :when (> a (limits l))] [l (- a (limits l))]))
            od-ops (filter #(pos? (get-in % [:value :overdrawn] 0)) (spends history))
            ;; A hard path has no overdraft, and a decision overdraws at most what it admitted.
            bad-od (vec (for [op od-ops
                              :let [{:keys [scope overdrawn admitted]} (:value op)]
                              :when (or (zero? (path-overdraft ods scope)) (> overdrawn (or admitted 0)))]
                          (select-keys op [:index :process :value])))
            soft (into (sorted-map) (filter (comp pos? val) ods))]
        (cond-> {:valid? (and (empty? over) (empty? bad-od))
                 :admitted admitted
                 :limits limits
                 :bounds (into (sorted-map) (for [[l x] b] [l (:bound x)]))
                 :over-bound over
                 :beyond-limit beyond}
          (seq soft) (assoc :overdrafts soft
                            :holders (into (sorted-map) (for [[l x] b] [l (:holders x)]))
                            :overdrawn overdrawn
                            :overdraft-admits (count od-ops)
                            :overdrawn-total (reduce + 0 (map #(get-in % [:value :overdrawn]) od-ops)))
          (seq bad-od) (assoc :bad-overdrafts (vec (take 10 bad-od)) :bad-overdraft-count (count bad-od)))))))

(defn billing []
  (reify checker/Checker
    (check [_ test history opts]
      (let [o (opts-of test opts)
            levels (set (keys (limits-of (:catalog o))))
            admitted (admitted-by-level history levels)
            cs (h/completions history)
            closes (filter #(= :close (:f %)) cs)
            all-closed? (and (seq closes) (every? h/ok? closes))
            read (some #(when (and (= :usage (:f %)) (h/ok? %)) (:value %)) cs)
            usage (:levels read)]
        (if (nil? usage)
          {:valid? :unknown :error "no :usage read completed"}
          (let [over (into (sorted-map) (for [[l a] admitted :when (> (get usage l 0) a)]
                                          [l [(get usage l 0) a]]))
                differ (into (sorted-map) (for [[l a] admitted :when (not= (get usage l 0) a)]
                                            [l [(get usage l 0) a]]))
                overage (:overage read)
                overdrawn (overdrawn-by-level history levels)
                overage-over (into (sorted-map) (for [[l billed] overage :when (> billed (get overdrawn l 0))]
                                                  [l [billed (get overdrawn l 0)]]))]
            (cond-> {:valid? (and (empty? over) (or (not all-closed?) (empty? differ)) (empty? overage-over))
                     :all-closed? (boolean all-closed?)
                     :billed usage
                     :admitted admitted
                     :billed-over-admitted over
                     :billed-differs differ}
              overage (assoc :billed-overage overage
                             :overage-events (:overage-events read)
                             :overage-read-complete? (:complete? read)
                             :overdrawn overdrawn
                             :overage-over-overdrawn overage-over))))))))

(defn budget-checker
  "Everything the quota-budget workloads are checked by."
  []
  (checker/compose {:admissions (admissions)
                    :billing (billing)
                    ;; Progress after the final heal: a holder's return and the usage read
                    ;; need the cluster (a :spend is decided locally, always ok).
                    :stats (checker/stats #{:close :usage})
                    :exceptions (checker/unhandled-exceptions)}))
