(ns ration.jepsen.checker.reservation
  "Reservation safety (docs/QUOTAS.md) over a history of the reservation workload.
  Times are the harness's monotonic ns; ledger times are never compared with them.

  A granted reservation r (some :ok reserve of its request id) is surely held at every level of
  its scope that has an entry for an item's resource over
    H(r) = [first :ok completion of its request id,
            min(first invocation of any complete/cancel naming r, first-invoke(req-id) + ttl·(1−ε)))
  — the ledger stores it before answering and keeps it until a settlement is applied or its
  expiry, which is ttl of log time after it was created (log time runs at most 1/(1−ε) fast
  and never ahead of real time). After H(r), an allocation level keeps at least what r
  settled with (completed: the actual; expired: the amount; cancelled: 0), when that is known
  from a settlement answer or the final usage log.

  Rules:
  - :limits — sweep per (level, resource): Σ surely-held (+ surely-allocated) ≤ limit at every
    instant. :info reserves are not counted here (they may not have happened); they are
    counted against the bound in :reads.
  - :reads — every :ok read of the levels: used (held, + allocated for allocation) ≤ limit;
    used ≥ what was surely held throughout the read; used ≤ what may have been held: every
    reserve request not definitely refused (:info included) invoked before the read completed,
    minus what was definitely released before it was invoked. Catches a resend charged twice
    and a reservation forgotten or released early.
  - :decisions — one decision per request id: every :ok/:fail domain answer to the same
    request id agrees (same reservation id / outcome; same settlement); no reservation id is
    granted to two request ids; every settlement answer about a reservation agrees (how and
    quantities), at most one request id settles it fresh, and a fresh settlement matches what
    was asked (complete: actuals or expired; cancel: zeros or expired); a granted reservation
    is never RESERVATION_UNKNOWN to a settlement (settlements are kept 1 h).
  - :usage-events — from the last :ok read of the usage log: at most one settlement event per
    (reservation, resource); it agrees with the settlement answers; every fresh settlement's
    event sequences name that reservation's events; a known settlement has its events; no more
    reservations in the log than granted + indeterminate reserves (no phantom reservation)."
  (:require [clojure.string :as str]
            [ration.jepsen.checker :as c :refer [Checker]]
            [ration.jepsen.history :as h]))

(def settlement-types #{:completed :cancelled :expired})

(defn levels-of [scope]
  (let [parts (str/split scope #"/")]
    (mapv #(str/join "/" (take % parts)) (range 1 (inc (count parts))))))

(defn- catalog [test opts]
  (into {} (for [[scope resource kind limit] (or (:catalog opts) (get-in test [:workload-opts :catalog]))]
             [[scope resource] {:kind kind :limit limit}])))

(defn- domain-answer
  "The ledger's decision in a completion, or nil (an :info or a definite transport failure)."
  [op]
  (cond
    (h/ok? op) (case (:f op)
                 :reserve [:ok (get-in op [:value :reservation-id])]
                 (:complete :cancel) [:ok (get-in op [:value :how]) (get-in op [:value :quantities])])
    (and (h/fail? op) (= :outcome (first (:error op)))) [:fail (second (:error op))]))

(defn model
  "What the history says about reserve requests, reservations and settlements."
  [history epsilon]
  (let [cs (h/completions history)
        invokes (filter #(and (h/invoke? %) (#{:reserve :complete :cancel} (:f %))) history)
        reserve-invokes (filter #(= :reserve (:f %)) invokes)
        completions-by-req (group-by #(get-in % [:value :req-id]) (filter #(#{:reserve :complete :cancel} (:f %)) cs))
        groups (into {}
                     (for [[req ops] (group-by #(get-in % [:value :req-id]) reserve-invokes)
                           :let [done (completions-by-req req)
                                 oks (sort-by :time (filter h/ok? done))
                                 refused (filter #(= :fail (first (domain-answer %))) done)
                                 v (:value (first ops))]]
                       [req {:req-id req
                             :first-invoke (reduce min (map :time ops))
                             :scope (:scope v) :items (:items v) :ttl-ms (:ttl-ms v)
                             :rid (get-in (first oks) [:value :reservation-id])
                             :start (:time (first oks))
                             ;; An attempt with an unknown outcome may be applied after a
                             ;; later attempt's refusal (an entry a deposed leader replicated
                             ;; commits under the next one): refused only when none is unknown.
                             :status (cond (seq oks) :granted
                                           (some h/info? done) :unknown
                                           (seq refused) :refused
                                           (and (= (count done) (count ops)) (every? h/fail? done)) :not-applied
                                           :else :unknown)}]))
        settle-ops (filter #(#{:complete :cancel} (:f %)) cs)
        settle-invoked (reduce (fn [m op]
                                 (if (#{:complete :cancel} (:f op))
                                   (update m (get-in op [:value :reservation-id]) #(min (or % Long/MAX_VALUE) (:time op)))
                                   m))
                               {} invokes)
        settle-oks (group-by #(get-in % [:value :reservation-id]) (filter h/ok? settle-ops))
        reservations (into {}
                           (for [g (sort-by :start (filter #(= :granted (:status %)) (vals groups)))
                                 :let [rid (:rid g)
                                       surely-until (+ (:first-invoke g) (long (* (:ttl-ms g) (- 1.0 epsilon) 1e6)))
                                       end (min surely-until (get settle-invoked rid Long/MAX_VALUE))]]
                             [rid (assoc g :end end
                                         :settled (first (sort-by :time (settle-oks rid))))]))]
    {:groups groups
     :reservations reservations
     :settle-ops settle-ops
     :settle-oks settle-oks
     :completions-by-req completions-by-req}))

(defn- usage-log
  "The most complete :ok usage-log read, or nil."
  [history]
  (->> (h/completions history)
       (filter #(and (h/ok? %) (= :usage-log (:f %))))
       (sort-by #(count (get-in % [:value :events])))
       last))

(defn settled-quantities
  "rid -> quantities vector, from the first :ok settlement answer, else the usage log."
  [m log-events]
  (let [from-log (->> log-events
                      (filter #(and (settlement-types (:type %)) (pos? (:reservation-id %))))
                      (group-by :reservation-id))]
    (into {}
          (for [[rid r] (:reservations m)
                :let [q (or (get-in r [:settled :value :quantities])
                            (let [es (from-log rid)
                                  by-res (into {} (map (juxt :resource :quantity)) es)]
                              (when (every? #(contains? by-res (:resource %)) (:items r))
                                (mapv #(by-res (:resource %)) (:items r)))))]
                :when q]
            [rid q]))))

(defn- item-index [r resource]
  (first (keep-indexed (fn [i it] (when (= resource (:resource it)) i)) (:items r))))

(defn- contributions
  "For one (level, resource): [{:rid :amount :start :end :keep}] of the granted reservations
  charged there; :keep is what an allocation level keeps after settlement (nil: unknown)."
  [m quantities [level resource] {:keys [kind]}]
  (for [[rid r] (:reservations m)
        :when (some #{level} (levels-of (:scope r)))
        :let [i (item-index r resource)]
        :when i]
    {:rid rid :amount (:amount (nth (:items r) i)) :start (:start r) :end (:end r)
     :keep (if (= :allocation kind) (some-> (quantities rid) (nth i)) 0)}))

(defn- analysis
  "What the limits and reads checkers share: the catalog, the reservation model and the settled
  quantities from the usage log."
  [test history opts]
  (let [m (model history (or (:epsilon opts) 0.1))]
    {:cat (catalog test opts)
     :m m
     :qs (settled-quantities m (get-in (usage-log history) [:value :events]))}))

(defn limits
  "Σ surely held (+ surely allocated) ≤ limit at every instant, per (level, resource)."
  []
  (reify Checker
    (check [_ test history opts]
      (let [{:keys [cat m qs]} (analysis test history opts)
            per-level
            (into (sorted-map)
                  (for [[k {:keys [limit] :as spec}] cat
                        :let [events (->> (contributions m qs k spec)
                                          (mapcat (fn [{:keys [rid amount start end keep]}]
                                                    (let [keep (or keep 0)]
                                                      (if (< start end)
                                                        [[start 1 rid amount] [end 0 rid (- keep amount)]]
                                                        (when (pos? keep) [[start 1 rid keep]])))))
                                          ;; At equal times, releases (0) before charges (1).
                                          (sort-by (juxt first second)))
                              sweep (reduce (fn [s [t kind rid d]]
                                              (let [used (+ (:used s) d)
                                                    s (-> s (assoc :used used)
                                                          (update :held (if (= 1 kind) #(conj % rid) #(disj % rid))))
                                                    s (if (> used (:max s)) (assoc s :max used :max-at t) s)]
                                                (if (and (= 1 kind) (> used limit))
                                                  (update s :violations conj {:time t :used used :limit limit
                                                                              :reservations (vec (sort (:held s)))})
                                                  s)))
                                            {:used 0 :max 0 :max-at nil :held #{} :violations []}
                                            events)]]
                    [k {:valid? (empty? (:violations sweep))
                        :limit limit
                        :max-surely-used (:max sweep)
                        :violation-count (count (:violations sweep))
                        :violations (vec (take 5 (:violations sweep)))}]))]
        {:valid? (every? :valid? (vals per-level))
         :granted (count (:reservations m))
         :indeterminate-reserves (count (filter #(= :unknown (:status %)) (vals (:groups m))))
         :levels (into (sorted-map) (for [[[l r] v] per-level] [(str l " " r) v]))}))))

(defn- read-errors [cat m quantities op]
  (let [inv (:invoke-time op), done (:time op)]
    (for [{:keys [scope resource kind limit held allocated] :as row} (get-in op [:value :levels])
          :let [spec (cat [scope resource])
                used (+ held (if (= :allocation kind) allocated 0))
                lower (reduce + (for [{:keys [amount start end keep]} (when spec (contributions m quantities [scope resource] spec))]
                                  (cond (and (< start end) (<= start inv) (>= end done)) amount
                                        (and keep (<= start inv)) keep
                                        :else 0)))
                upper (reduce + (for [g (vals (:groups m))
                                      :when (and spec (#{:granted :unknown} (:status g)) (< (:first-invoke g) done)
                                                 (some #{scope} (levels-of (:scope g))))
                                      :let [r (when (:rid g) ((:reservations m) (:rid g)))
                                            i (item-index g resource)]
                                      :when i
                                      :let [amount (:amount (nth (:items g) i))
                                            s (:settled r)]]
                                  (if (and s (< (:time s) inv))
                                    (if (= :allocation kind) (nth (get-in s [:value :quantities]) i) 0)
                                    amount)))]
          e [(when-not spec {:kind :unknown-entry})
             (when (and spec (not= [(:kind spec) (:limit spec)] [kind limit]))
               {:kind :entry-changed :expected [(:kind spec) (:limit spec)] :read [kind limit]})
             (when (or (neg? held) (neg? allocated)) {:kind :negative})
             (when (> used limit) {:kind :over-limit})
             (when (< used lower) {:kind :below-surely-held :surely-held lower})
             (when (> used upper) {:kind :above-possibly-held :possibly-held upper})]
          :when e]
      (merge {:index (:index op) :scope scope :resource resource :used used :limit limit} e))))

(defn reads
  "Every :ok read of the levels is within [surely held, possibly held] and ≤ limit."
  []
  (reify Checker
    (check [_ test history opts]
      (let [{:keys [cat m qs]} (analysis test history opts)
            rs (filter #(and (h/ok? %) (= :read (:f %))) (h/completions history))
            errs (vec (mapcat #(read-errors cat m qs %) rs))]
        {:valid? (empty? errs)
         :read-count (count rs)
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn decisions
  "One decision per request id, one settlement per reservation."
  []
  (reify Checker
    (check [_ test history opts]
      (let [m (model history (or (:epsilon opts) 0.1))
            cs (h/completions history)
            reserve-cs (filter #(= :reserve (:f %)) cs)
            conflicting (for [[req ops] (:completions-by-req m)
                              :let [answers (distinct (keep domain-answer ops))]
                              :when (> (count answers) 1)]
                          {:kind :conflicting-decisions :req-id req :answers (vec answers)
                           :indexes (mapv :index ops)})
            reused (for [[rid ops] (group-by #(get-in % [:value :reservation-id]) (filter h/ok? reserve-cs))
                         :let [reqs (distinct (map #(get-in % [:value :req-id]) ops))]
                         :when (> (count reqs) 1)]
                     {:kind :reservation-id-reused :reservation-id rid :req-ids (vec reqs)})
            settlements (for [[rid ops] (:settle-oks m)
                              :let [answers (distinct (map #(select-keys (:value %) [:how :quantities]) ops))]
                              :when (> (count answers) 1)]
                          {:kind :conflicting-settlements :reservation-id rid :answers (vec answers)})
            twice (for [[rid ops] (:settle-oks m)
                        :let [fresh (distinct (map #(get-in % [:value :req-id])
                                                   (remove #(get-in % [:value :already-settled?]) ops)))]
                        :when (> (count fresh) 1)]
                    {:kind :settled-twice :reservation-id rid :req-ids (vec fresh)})
            wrong (for [op (mapcat val (:settle-oks m))
                        :let [{:keys [reservation-id how quantities actuals already-settled?]} (:value op)
                              r ((:reservations m) reservation-id)
                              amounts (mapv :amount (:items r))]
                        :when (and r (not already-settled?))
                        :let [expected (case how
                                         :completed (when (= :complete (:f op)) actuals)
                                         :cancelled (when (= :cancel (:f op)) (mapv (constantly 0) amounts))
                                         :expired amounts
                                         nil)]
                        :when (not= expected quantities)]
                    {:kind :wrong-settlement :index (:index op) :f (:f op) :reservation-id reservation-id
                     :how how :quantities quantities :expected expected})
            forgotten (for [op (:settle-ops m)
                            :when (and (= [:outcome :reservation_unknown] (:error op))
                                       ((:reservations m) (get-in op [:value :reservation-id])))]
                        {:kind :settlement-forgotten :index (:index op) :reservation-id (get-in op [:value :reservation-id])})
            errs (vec (concat conflicting reused settlements twice wrong forgotten))]
        {:valid? (empty? errs)
         :request-ids (count (:completions-by-req m))
         :resent (count (filter #(and (h/invoke? %) (get-in % [:value :resend?])) history))
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn- phantom-fits?
  "Whether reserve group g (unknown outcome) could have made the reservation whose usage events
  are es: the same scope, the same resources, and an expiry's quantity equal to the amount."
  [g es]
  (let [items (into {} (map (juxt :resource :amount)) (:items g))]
    (and (every? #(= (:scope g) (:scope %)) es)
         (= (set (keys items)) (set (map :resource es)))
         (every? #(or (not= :expired (:type %)) (= (items (:resource %)) (:quantity %))) es))))

(defn- augment
  "Kuhn's step: tries to match phantom i to a reserve (cands i), moving earlier matches along.
  match maps a reserve's index to the phantom it explains. Returns [match matched? seen]."
  [cands match i seen]
  (loop [js (cands i), seen seen]
    (if-let [j (first js)]
      (if (seen j)
        (recur (rest js) seen)
        (let [seen (conj seen j), k (match j)]
          (if (nil? k)
            [(assoc match j i) true seen]
            (let [[m ok seen] (augment cands match k seen)]
              (if ok [(assoc m j i) true seen] (recur (rest js) seen))))))
      [match false seen])))

(defn unexplained-phantoms
  "The reservation ids among phantoms ({rid events}) that no distinct reserve of unknown outcome
  (unknowns: groups with :scope and :items) can account for: a maximum matching of phantoms to
  reserves that fit them, so one indeterminate reserve explains at most one reservation."
  [phantoms unknowns]
  (let [ps (vec (sort-by key phantoms))
        us (vec unknowns)
        cands (vec (for [[_ es] ps] (vec (keep-indexed (fn [j g] (when (phantom-fits? g es) j)) us))))
        match (reduce (fn [match i] (first (augment cands match i #{}))) {} (range (count ps)))
        explained (set (vals match))]
    (vec (for [i (range (count ps)) :when (not (explained i))] (key (nth ps i))))))

(defn usage-events
  "At most one usage event per settled (reservation, resource), agreeing with the settlement
  answers; no phantom reservations. Needs the final usage-log read (:unknown without one)."
  []
  (reify Checker
    (check [_ test history opts]
      (if-let [log (usage-log history)]
        (let [m (model history (or (:epsilon opts) 0.1))
              {:keys [events last-seq]} (:value log)
              by-seq (into {} (map (juxt :seq identity)) events)
              settles (filter #(and (settlement-types (:type %)) (pos? (:reservation-id %))) events)
              by-key (group-by (juxt :reservation-id :resource) settles)
              rs (:reservations m)
              dups (for [[k es] by-key :when (> (count es) 1)]
                     {:kind :duplicate-events :reservation-id (first k) :resource (second k) :seqs (mapv :seq es)})
              mismatch (for [[[rid resource] es] by-key
                             :let [r (rs rid), s (:settled r), i (when r (item-index r resource))]
                             :when (and s i)
                             :let [e (first es)
                                   want [(get-in s [:value :how]) (nth (get-in s [:value :quantities]) i)]]
                             :when (not= want [(:type e) (:quantity e)])]
                         {:kind :event-mismatch :reservation-id rid :resource resource :event [(:type e) (:quantity e)]
                          :answer want})
              invalid (for [[[rid resource] es] by-key
                            :let [r (rs rid), i (when r (item-index r resource))]
                            :when i
                            :let [amount (:amount (nth (:items r) i)), e (first es)]
                            :when (not (case (:type e)
                                         :completed (<= 0 (:quantity e) amount)
                                         :cancelled (zero? (:quantity e))
                                         :expired (= amount (:quantity e))))]
                        {:kind :event-quantity-invalid :reservation-id rid :resource resource :type (:type e)
                         :quantity (:quantity e) :reserved amount})
              seq-errs (for [[rid ops] (:settle-oks m)
                             op ops
                             :let [{:keys [event-seqs already-settled?]} (:value op), r (rs rid)]
                             :when (and r (not already-settled?))
                             [i s] (map-indexed vector event-seqs)
                             :when (<= s last-seq)
                             :let [want (str "res:" rid ":" (:resource (nth (:items r) i nil)))
                                   got (:event-id (by-seq s))]
                             :when (not= want got)]
                         {:kind :event-seq-mismatch :index (:index op) :seq s :expected want :found got})
              missing (for [[rid r] rs
                            :when (:settled r)
                            it (:items r)
                            :when (not (contains? by-key [rid (:resource it)]))]
                        {:kind :missing-event :reservation-id rid :resource (:resource it)})
              logged (set (map :reservation-id settles))
              phantom (remove rs logged)
              unknowns (filter #(= :unknown (:status %)) (vals (:groups m)))
              unexplained (unexplained-phantoms (select-keys (group-by :reservation-id settles) phantom)
                                                unknowns)
              errs (vec (concat dups mismatch invalid seq-errs missing
                                (when (seq unexplained)
                                  [{:kind :phantom-reservations :count (count phantom)
                                    :indeterminate-reserves (count unknowns)
                                    :unexplained (count unexplained)
                                    :reservation-ids (vec (take 10 unexplained))}])))]
          {:valid? (empty? errs)
           :events (count events)
           :settlement-events (count settles)
           :reservations-in-log (count logged)
           :granted (count rs)
           :unsettled-at-end (count (remove logged (keys rs)))
           :error-count (count errs)
           :errors (vec (take 10 errs))})
        {:valid? :unknown :error "no :ok usage-log read"}))))

(defn keys-checker
  "One reservation per idempotency key: every :ok reserve under one key (and the answer of a
  killed first attempt, when it arrived before the kill) names the same reservation id. A
  second reservation for a key is what a retry from a restarted client (a new client id, so a
  new transport key) would make if the key were not kept; a retry refused under a key whose killed
  attempt reserved is the same fault seen the other way."
  []
  (reify Checker
    (check [_ test history opts]
      (let [oks (filter #(and (= :reserve (:f %)) (h/ok? %)) (h/completions history))
            key-of #(or (get-in % [:value :idem-key]) (get-in % [:value :req-id]))
            errs (for [[k ops] (group-by key-of oks)
                       :let [ids (distinct (mapcat #(keep (:value %) [:reservation-id :first-reservation-id]) ops))]
                       :when (> (count ids) 1)]
                   {:kind :two-reservations-for-one-key :key k :reservation-ids (vec ids)
                    :indexes (mapv :index ops)})
            ;; A retry refused under a key whose killed attempt reserved: the key was not kept.
            refused (for [o oks
                          :let [e (get-in o [:value :retry-error])]
                          :when (and (vector? e) (= :outcome (first e)))]
                      {:kind :retry-refused-under-a-reserved-key :key (key-of o)
                       :reservation-id (get-in o [:value :reservation-id]) :retry-error e :index (:index o)})
            errs (concat errs refused)]
        {:valid? (empty? errs)
         :keys (count (distinct (map key-of oks)))
         :restarted-retries (count (filter #(get-in % [:value :restarted?]) oks))
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn reservation-checker
  "Everything the reservation workload is checked by."
  []
  (c/compose {:limits (limits)
              :reads (reads)
              :decisions (decisions)
              :keys (keys-checker)
              :usage-events (usage-events)
              :stats (c/stats #{:reserve :complete :cancel :read})
              :ledger-clock (c/ledger-clock)
              :exceptions (c/unhandled-exceptions)}))
