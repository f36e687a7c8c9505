(ns ration.jepsen.checker
  "Checkers: (check checker test history opts) -> {:valid? true|false|:unknown ...}. compose
  runs several and merges validity with merge-valid (false > :unknown > true).

  Lease checkers. Times are the harness's monotonic ns. A lease L is usable
  by an honest holder over U(L): from its acquire's :ok completion, while some :ok
  acquire/renew k with completion c_k <= t has first-invocation(req-id_k) + ttl_k·(1−ε) > t,
  and before L's release is invoked; its share at t is that of the latest :ok completed by t."
  (:require [ration.jepsen.history :as h]))

(defprotocol Checker
  (check [checker test history opts]))

(defn merge-valid
  [vs]
  (reduce (fn [a b] (cond (or (false? a) (false? b)) false
                          (or (= :unknown a) (= :unknown b)) :unknown
                          :else true))
          true vs))

(defn compose
  "{name checker} -> a checker whose result has each result under its name."
  [checkers]
  (reify Checker
    (check [_ test history opts]
      (let [rs (into (sorted-map) (for [[k c] checkers]
                                    [k (try (check c test history opts)
                                            (catch Throwable t {:valid? :unknown :error (str t)}))]))]
        (assoc rs :valid? (merge-valid (map :valid? (vals rs))))))))

;; ------------------------------------------------------------------ lease model from a history

(defn first-invocations
  "req-id -> earliest invocation time of any op carrying it (resends share it)."
  [history]
  (reduce (fn [m op]
            (if-let [r (and (h/invoke? op) (get-in op [:value :req-id]))]
              (update m r #(if % (min % (:time op)) (:time op)))
              m))
          {} history))

(defn lease-segments
  "lease-id -> {:tenant :segments [[from to rate burst slots] ...] :acquired-at :release-invoked}
  (slots 0 when the grant carries none)."
  [history epsilon]
  (let [firsts (first-invocations history)
        cs (h/completions history)
        grants (->> cs
                    (filter #(and (h/ok? %) (#{:acquire :renew} (:f %))))
                    (group-by #(get-in % [:value :lease-id])))
        releases (->> history
                      (filter #(and (h/invoke? %) (= :release (:f %))))
                      (group-by #(get-in % [:value :lease-id])))]
    (into {}
          (for [[id gs] grants
                :let [gs (sort-by :time gs)
                      acq (first (filter #(= :acquire (:f %)) gs))]
                :when acq
                :let [rel (some->> (get releases id) (map :time) seq (apply min))
                      gs (drop-while #(< (:time %) (:time acq)) gs)
                      ends (reductions max (map (fn [g]
                                                  (let [v (:value g)
                                                        fi (get firsts (:req-id v) (:invoke-time g))]
                                                    (+ fi (long (* (:ttl-ms v) (- 1.0 epsilon) 1e6)))))
                                                gs))
                      nexts (concat (map :time (rest gs)) [Long/MAX_VALUE])
                      segs (vec (keep (fn [[g e nxt]]
                                        (let [from (:time g)
                                              to (min e nxt (or rel Long/MAX_VALUE))]
                                          (when (< from to)
                                            [from to (get-in g [:value :rate]) (get-in g [:value :burst])
                                             (get-in g [:value :slots] 0)])))
                                      (map vector gs ends nexts)))]]
            [id {:tenant (get-in acq [:value :tenant])
                 :acquired-at (:time acq)
                 :release-invoked rel
                 :segments segs}]))))

;; ------------------------------------------------------------------ concurrency slots

(defn slot-usage
  "lease-id -> {:tenant :steps [[from to slots] ...]}: the slots an honest holder may run jobs
  under. A lease's share at t is the :slots of its latest :ok acquire/renew completed by t,
  while usable (as lease-segments). A slot renewal invoked with :release r >= 0 is the
  holder's promise to run at most r jobs from that invocation until the renewal completes :ok
  (or, without an :ok answer, for as long as the lease is usable), because the ledger stops
  counting the slots above r when it applies the renewal; so over that interval the holder's
  slots are min(share, r)."
  [history epsilon]
  (let [segs (lease-segments history epsilon)
        oks (reduce (fn [m c]
                      (if (and (h/ok? c) (= :renew (:f c)))
                        (update m (get-in c [:value :req-id]) #(if % (min % (:time c)) (:time c)))
                        m))
                    {} (h/completions history))
        promises (->> history
                      (filter #(and (h/invoke? %) (= :renew (:f %))
                                    (some-> (get-in % [:value :release]) (>= 0))))
                      (map (fn [op]
                             [(get-in op [:value :lease-id])
                              [(:time op) (get oks (get-in op [:value :req-id]) Long/MAX_VALUE)
                               (get-in op [:value :release])]]))
                      (group-by first))]
    (into {}
          (for [[id l] segs
                :let [ps (map second (get promises id))
                      covering (fn [t ivs] (filter (fn [[f to]] (and (<= f t) (< t to))) ivs))
                      cuts (->> (concat (mapcat (fn [[f t]] [f t]) (:segments l))
                                        (mapcat (fn [[f t]] [f t]) ps)
                                        [Long/MAX_VALUE])
                                distinct sort)
                      steps (vec (keep (fn [[a b]]
                                         (when-let [[_ _ _ _ share] (first (covering a (:segments l)))]
                                           (let [cap (reduce min Long/MAX_VALUE (map #(nth % 2) (covering a ps)))
                                                 n (min (or share 0) cap)]
                                             (when (pos? n) [a b n]))))
                                       (partition 2 1 cuts)))]]
            [id {:tenant (:tenant l) :steps steps}]))))

(defn- slot-sweep
  "Σ slots over the tenant's leases at every instant against C (ends before starts at equal
  times): {:valid? :max-seen :violation-count :violations}."
  [usage tenant concurrency]
  (let [events (->> usage
                    (filter #(= tenant (:tenant (val %))))
                    (mapcat (fn [[id u]] (mapcat (fn [[from to n]] [[from 1 id n] [to 0 id n]]) (:steps u))))
                    (sort-by (juxt first second)))
        sweep (reduce (fn [{:keys [n active] :as s} [t kind id dn]]
                        (let [n (if (= 1 kind) (+ n dn) (- n dn))
                              active (if (= 1 kind) (assoc active id dn) (dissoc active id))
                              s (assoc s :n n :active active)
                              s (if (> n (get-in s [:max-seen :slots] 0))
                                  (assoc s :max-seen {:time t :slots n :leases (vec (keys active))})
                                  s)]
                          (if (and (= 1 kind) (> n concurrency))
                            (update s :violations conj {:time t :slots n :C concurrency :leases active})
                            s)))
                      {:n 0 :active {} :max-seen nil :violations []}
                      events)]
    {:valid? (empty? (:violations sweep))
     :max-seen (:max-seen sweep)
     :violation-count (count (:violations sweep))
     :violations (vec (take 5 (:violations sweep)))}))

(defn- tenant-limits [test opts]
  (or (:tenants opts) (get-in test [:workload-opts :tenants])))

(defn conservation
  "Σ rate ≤ R and Σ burst ≤ B over usable intervals at every instant, per tenant; for a tenant
  whose limit has a :concurrency C, also Σ slots ≤ C (slot-usage, under :slots). :info acquires
  are unknown grants (their capacity may be leaked until expiry): reported, never violations."
  []
  (reify Checker
    (check [_ test history opts]
      (let [eps (or (:epsilon opts) 0.1)
            limits (tenant-limits test opts)
            leases (lease-segments history eps)
            slots (slot-usage history eps)
            per-tenant
            (into (sorted-map)
                  (for [[tenant {:keys [rate burst concurrency]}] limits
                        :let [events (->> leases
                                          (filter #(= tenant (:tenant (val %))))
                                          (mapcat (fn [[id l]]
                                                    (mapcat (fn [[from to r b _]]
                                                              [[from 1 id r b] [to 0 id r b]])
                                                            (:segments l))))
                                          ;; At equal times, ends (0) before starts (1).
                                          (sort-by (juxt first second)))
                              sweep (reduce (fn [{:keys [r b active worst violations] :as s} [t kind id dr db]]
                                              (let [sign (if (= 1 kind) 1 -1)
                                                    r (+ r (* sign dr)), b (+ b (* sign db))
                                                    active (if (= 1 kind) (assoc active id [dr db]) (dissoc active id))
                                                    s (assoc s :r r :b b :active active)
                                                    s (if (> (+ r (/ b (max 1 burst))) (:score worst 0))
                                                        (assoc s :worst {:time t :rate r :burst b :score (+ r (/ b (max 1 burst)))
                                                                         :leases (vec (keys active))})
                                                        s)]
                                                (if (and (= 1 kind) (or (> r rate) (> b burst)))
                                                  (update s :violations conj {:time t :rate r :burst b :R rate :B burst
                                                                              :leases active})
                                                  s)))
                                            {:r 0 :b 0 :active {} :worst nil :violations []}
                                            events)]]
                    [tenant (cond-> {:valid? (empty? (:violations sweep))
                             :leases (count (filter #(= tenant (:tenant (val %))) leases))
                             :max-seen (dissoc (:worst sweep) :score)
                             :violation-count (count (:violations sweep))
                             :violations (vec (take 5 (:violations sweep)))}
                              concurrency (as-> t (let [sl (slot-sweep slots tenant concurrency)]
                                                    (assoc t :slots sl :valid? (and (:valid? t) (:valid? sl))))))]))
            unknown (count (filter #(and (h/info? %) (= :acquire (:f %))) (h/completions history)))]
        {:valid? (every? :valid? (vals per-tenant))
         :tenants per-tenant
         :indeterminate-acquires unknown}))))

(defn- emergency? [op] (true? (get-in op [:value :emergency?])))

(defn- admit-holder
  "The holder of an admit or close: the thread's cid (:holder), else its process."
  [op]
  (get-in op [:value :holder] (:process op)))

(defn- req-holder
  "The holder of a lease call: the cid of its request id [cid n]."
  [op]
  (let [r (get-in op [:value :req-id])] (when (vector? r) (first r))))

(defn- best-effort-limit? [limit] (= :best-effort (:mode limit)))

(defn- emergency-episodes
  "Per holder, the tokens admitted from emergency budgets between consecutive \"new lease or
  new limiter\" points: the holder's :ok/:info acquire or renew completions (recorded before
  the limiter installs the answer; resends included) and its :close completions. Admissions
  fall into a segment by invocation time. A limiter gets a fresh E only when it installs a
  lease, so each segment may hold at most E (segments can only be finer than the limiter's
  disconnections, never coarser). -> [{:holder :from :to :spent :admits}] with spent > E."
  [ops lease-calls closes e]
  (let [admits (filter emergency? ops)]
    (vec (for [[holder as] (group-by admit-holder admits)
               :let [cuts (->> (concat (filter #(= holder (req-holder %)) lease-calls)
                                       (filter #(= holder (admit-holder %)) closes))
                               (map :time) sort vec)
                     seg-of (fn [t] (count (take-while #(< % t) cuts)))]
               [seg as] (group-by #(seg-of (:invoke-time % (:time %))) as)
               :let [spent (reduce + (map #(get-in % [:value :n]) as))]
               :when (> spent e)]
           {:holder holder :segment seg :spent spent :E e
            :from (get cuts (dec seg)) :to (get cuts seg) :admits (mapv :index as)}))))

(defn admissions
  "Per tenant, the admission curve W_k = max(0, W_{k−1} − R·Δt) + n_k over :ok admits at
  completion time (emergency admissions included); a violation iff W > bound, where
    hard:        bound = B + R·L_max
    best-effort: bound = B + R·L_max + E·H
  L_max is the largest admit latency, E the limit's :emergency and H the tenant's holders:
  the distinct threads that admitted for it or invoked an acquire of it (docs/LIMITER.md's
  Σ E over the holders that can be disconnected at once; each thread holds at most one
  limiter at a time, so H over-counts, never under-counts). Best-effort tenants are also
  checked per holder: at most E emergency tokens between two of its lease grants
  (emergency-episodes). A hard tenant must admit nothing from an emergency budget."
  []
  (reify Checker
    (check [_ test history opts]
      (let [limits (tenant-limits test opts)
            cs (h/completions history)
            admits (filter #(and (h/ok? %) (= :admit (:f %)) (pos? (get-in % [:value :n] 0))) cs)
            lease-calls (filter #(and (#{:ok :info} (:type %)) (#{:acquire :renew} (:f %))) cs)
            closes (filter #(and (h/ok? %) (= :close (:f %))) cs)
            acquire-invokes (filter #(and (h/invoke? %) (= :acquire (:f %))) history)
            lmax (reduce max 0 (map #(- (:time %) (:invoke-time %)) admits))
            per-tenant
            (into (sorted-map)
                  (for [[tenant {:keys [rate burst emergency] :as limit}] limits
                        :let [of-tenant #(= tenant (get-in % [:value :tenant]))
                              ops (sort-by :time (filter of-tenant admits))
                              best-effort (best-effort-limit? limit)
                              e (long (or emergency 0))
                              holders (into (set (map admit-holder ops))
                                            (keep req-holder (filter of-tenant acquire-invokes)))
                              sum-e (if best-effort (* e (count holders)) 0)
                              bound (+ burst (* rate (/ lmax 1e9)) sum-e)
                              res (reduce (fn [{:keys [w t] :as s} op]
                                            (let [dt (if t (/ (- (:time op) t) 1e9) 0)
                                                  w (+ (max 0.0 (- w (* rate dt))) (get-in op [:value :n]))
                                                  s (assoc s :w w :t (:time op) :max-w (max (:max-w s) w))]
                                              (if (> w (+ bound 1e-9))
                                                (update s :violations conj {:index (:index op) :time (:time op) :w w :bound bound})
                                                s)))
                                          {:w 0.0 :t nil :max-w 0.0 :violations []}
                                          ops)
                              em (filter emergency? ops)
                              episodes (if best-effort
                                         (emergency-episodes ops (filter of-tenant lease-calls) (filter of-tenant closes) e)
                                         [])
                              hard-em (if best-effort [] (vec (map :index em)))]]
                    [tenant {:valid? (and (empty? (:violations res)) (empty? episodes) (empty? hard-em))
                             :mode (if best-effort :best-effort :hard)
                             :formula (if best-effort "B + R·L_max + E·H" "B + R·L_max")
                             :B burst :R rate :E (when best-effort e) :H (when best-effort (count holders))
                             :admitted (reduce + (map #(get-in % [:value :n]) ops))
                             :emergency-admits (count em)
                             :emergency-admitted (reduce + (map #(get-in % [:value :n]) em))
                             :max-w (:max-w res)
                             :bound bound
                             :violation-count (count (:violations res))
                             :violations (vec (take 5 (:violations res)))
                             :emergency-over-E (vec (take 5 episodes))
                             :emergency-in-hard-mode (vec (take 5 hard-em))}]))]
        {:valid? (every? :valid? (vals per-tenant))
         :max-admit-latency-ns lmax
         :tenants per-tenant}))))

(defn lifecycle
  "No :ok renew or spending admit invoked after an :ok release of the lease completed; no
  spending admit outside U(L). Emergency admissions (:emergency?) of a best-effort tenant are
  exempt: they are by design made after local expiry, from the budget E, and bounded by
  :admissions. A hard tenant's are not exempt."
  []
  (reify Checker
    (check [_ test history opts]
      (let [eps (or (:epsilon opts) 0.1)
            limits (tenant-limits test opts)
            exempt? (fn [op] (and (emergency? op)
                                  (best-effort-limit? (get limits (get-in op [:value :tenant])))))
            cs (remove exempt? (h/completions history))
            released (->> cs
                          (filter #(and (h/ok? %) (= :release (:f %))))
                          (reduce (fn [m op] (update m (get-in op [:value :lease-id]) #(min (or % Long/MAX_VALUE) (:time op)))) {}))
            segs (lease-segments history eps)
            ;; An admission through the limiter names the lease it held just before and just
            ;; after deciding (:lease-ids): it came from one of them.
            ids-of (fn [op] (or (seq (get-in op [:value :lease-ids])) [(get-in op [:value :lease-id])]))
            after-release (for [op cs
                                :when (and (h/ok? op) (#{:renew :admit} (:f op))
                                           (or (= :renew (:f op)) (pos? (get-in op [:value :n] 0))))
                                :let [rts (map released (ids-of op))]
                                :when (every? #(and % (> (:invoke-time op) %)) rts)]
                            {:kind (keyword (str (name (:f op)) "-after-release")) :index (:index op)
                             :lease-id (get-in op [:value :lease-id]) :released-at (first rts) :invoked-at (:invoke-time op)})
            outside (for [op cs
                          :when (and (h/ok? op) (= :admit (:f op)) (pos? (get-in op [:value :n] 0)))
                          :let [ids (ids-of op)
                                ss (mapcat #(get-in segs [% :segments]) ids)]
                          :when (not-any? (fn [[from to]] (and (< (:invoke-time op) to) (>= (:time op) from))) ss)]
                      {:kind :admit-outside-lease :index (:index op) :lease-id (get-in op [:value :lease-id])
                       :n (get-in op [:value :n]) :time (:time op) :segments (vec (take-last 2 ss))})
            errs (vec (concat after-release outside))]
        {:valid? (empty? errs)
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn unique-leases
  "No lease id granted to two different acquire request ids."
  []
  (reify Checker
    (check [_ _ history _]
      (let [by-id (->> (h/completions history)
                       (filter #(and (h/ok? %) (= :acquire (:f %))))
                       (group-by #(get-in % [:value :lease-id])))
            dups (into {} (for [[id ops] by-id
                                :let [reqs (distinct (map #(get-in % [:value :req-id]) ops))]
                                :when (> (count reqs) 1)]
                            [id reqs]))]
        {:valid? (empty? dups)
         :attempted-count (count (filter #(and (h/invoke? %) (= :acquire (:f %))) history))
         :acquired-count (count by-id)
         :duplicated-count (count dups)
         :duplicated (into {} (take 10 dups))}))))

(defn- read-errors [limits op]
  (let [{:keys [tenant limit leases]} (:value op)
        {:keys [rate burst]} (get limits tenant)
        neg (for [[k v] (select-keys limit [:counted-rate :counted-burst :granted-rate :granted-burst :pool])
                  :when (neg? v)] [k v])
        lease-neg (for [l leases, k [:rate :burst :counted-rate :counted-burst] :when (neg? (get l k 0))] [(:lease-id l) k])
        sum-r (reduce + (map :counted-rate leases))
        sum-b (reduce + (map :counted-burst leases))]
    (cond-> []
      (nil? rate) (conj [:unknown-tenant tenant])
      (nil? limit) (conj [:limit-missing tenant])
      (and limit rate (not= [rate burst] [(:rate limit) (:burst limit)])) (conj [:limit-changed {:expected [rate burst] :read [(:rate limit) (:burst limit)]}])
      (seq neg) (conj [:negative-value (vec neg)])
      (seq lease-neg) (conj [:negative-lease-value (vec lease-neg)])
      (and limit (> (:counted-rate limit) rate)) (conj [:counted-rate-over-R (:counted-rate limit) rate])
      (and limit (> (:counted-burst limit) burst)) (conj [:counted-burst-over-B (:counted-burst limit) burst])
      (and limit (> (+ (:pool limit) (:counted-burst limit)) burst)) (conj [:pool-plus-burst-over-B (:pool limit) (:counted-burst limit) burst])
      (and rate (> sum-r rate)) (conj [:lease-rate-sum-over-R sum-r rate])
      (and burst (> sum-b burst)) (conj [:lease-burst-sum-over-B sum-b burst]))))

(defn reads
  "Bank-style checks of every :ok ledger read: known tenant, limit present and unchanged,
  nothing negative, counted shares ≤ R/B, pool + counted burst ≤ B, Σ lease shares ≤ R/B."
  []
  (reify Checker
    (check [_ test history opts]
      (let [limits (tenant-limits test opts)
            rs (filter #(and (h/ok? %) (= :ledger-read (:f %))) history)
            bad (vec (for [op rs :let [e (read-errors limits op)] :when (seq e)]
                       {:index (:index op) :errors e}))]
        {:valid? (empty? bad)
         :read-count (count rs)
         :error-count (count bad)
         :first-errors (vec (take 5 bad))}))))

(defn stats
  "Liveness: per-f ok/fail/info counts; for admits, the reasons and the emergency admissions
  (count and tokens); time from the final heal (the last nemesis op other than
  :await-recovery) to the first :ok client op after it; the harness's time-to-recovery (every
  node /ready and a leader). Invalid when no client op succeeded after the final heal: the
  harness waited (bounded, generously) for recovery before the final reads, so silence then is
  a liveness failure, not slowness. Histories without nemesis ops need any :ok at all."
  ([] (stats #{:acquire :renew :ledger-read}))
  ([progress-fs]
  (reify Checker
    (check [_ _ history _]
      (let [cs (filter h/client-op? (remove h/invoke? history))
            by-f (into (sorted-map)
                       (for [[f ops] (group-by :f cs)]
                         [f (let [fr (frequencies (map :type ops))]
                              {:ok (fr :ok 0) :fail (fr :fail 0) :info (fr :info 0)
                               :ok-fraction (if (seq ops) (double (/ (fr :ok 0) (count ops))) 0.0)})]))
            nemesis-ops (filter #(= :nemesis (:process %)) history)
            last-heal (->> nemesis-ops (remove #(= :await-recovery (:f %))) (map :time) (reduce max -1))
            recovery (->> nemesis-ops (filter #(and (= :await-recovery (:f %)) (map? (:value %))
                                                    (contains? (:value %) :recovered?)))
                          last :value)
            first-ok-after (->> cs (filter #(and (h/ok? %) (progress-fs (:f %))
                                                 (> (:time %) last-heal)))
                                (map :time) sort first)
            any-ok (some h/ok? cs)
            ok-admits (filter #(and (h/ok? %) (= :admit (:f %))) cs)]
        (cond-> {:valid? (boolean (and any-ok first-ok-after))
                 :count (count cs)
                 :ok-count (count (filter h/ok? cs))
                 :by-f by-f
                 :final-heal-time-s (when (pos? last-heal) (/ last-heal 1e9))
                 :seconds-to-first-ok-after-heal (when (and first-ok-after (pos? last-heal))
                                                   (/ (- first-ok-after last-heal) 1e9))}
          (seq ok-admits) (assoc :admit-reasons (into (sorted-map) (frequencies (keep #(get-in % [:value :reason]) ok-admits)))
                                 :emergency-admits (count (filter emergency? ok-admits))
                                 :emergency-admitted (reduce + (map #(get-in % [:value :n] 0) (filter emergency? ok-admits))))
          recovery (assoc :recovery (select-keys recovery [:recovered? :seconds :timeout-s :ready :leader]))
          (not first-ok-after) (assoc :error (if (and recovery (not (:recovered? recovery)))
                                               "no recovery (every node ready + a leader) within the bounded wait, and no op succeeded after the final heal"
                                               "no client op succeeded after the final heal"))))))))

(defn members
  "Membership cells: every node the nemesis took out and added back is, at the end, a live
  voter. The harness's wait after the final heal (:await-recovery) records whether every node
  answered /ready (it knows a leader, so its Raft runs) and the leader's configuration lists
  every node as a voter; an add that reported success while its newcomer then shut its Raft
  down leaves that node not ready, or a listener, and this checker invalid, whatever the ledger
  checkers say."
  []
  (reify Checker
    (check [_ test history _]
      (let [recovery (->> history
                          (filter #(and (= :nemesis (:process %)) (= :await-recovery (:f %))
                                        (map? (:value %)) (contains? (:value %) :recovered?)))
                          last :value)
            all (set (map name (:nodes test)))
            voters (set (:voters recovery))
            ready (set (map name (:ready recovery)))]
        (cond
          (nil? recovery) {:valid? false :error "no :await-recovery record: the end state is unknown"}
          (and (:recovered? recovery) (= all voters))
          {:valid? true :voters (vec (sort voters))}
          :else {:valid? false
                 :error "not every node is a live voter at the end"
                 ;; What the nemesis did, in order, so a failed run says which change went astray.
                 :changes (vec (for [op history
                                     :when (and (= :nemesis (:process op)) (#{:remove-node :add-node} (:f op))
                                                (map? (:value op)) (not (contains? (:value op) :timeout-s)))]
                                 [(:f op) (let [v (pr-str (:value op))] (subs v 0 (min 300 (count v))))]))
                 :not-ready (vec (sort (remove ready all)))
                 :not-voters (vec (sort (remove voters all)))
                 :listeners (:listeners recovery)
                 :recovery (select-keys recovery [:seconds :timeout-s :leader])})))))

(defn unhandled-exceptions
  "Exceptions seen in completions, grouped (never fails)."
  []
  (reify Checker
    (check [_ _ history _]
      (let [ex (filter :exception history)]
        {:valid? true
         :count (count ex)
         :exceptions (into {} (map (fn [[k v]] [k (count v)]) (group-by #(subs (str (:exception %)) 0 (min 120 (count (str (:exception %))))) ex)))}))))

(defn- ledger-point
  "[harness ms at the middle of the op, ledger ms] for an :ok completion that reports the
  ledger's time (when it was applied or read), else nil. Resends are skipped (their answer
  is the original's)."
  [op]
  (let [v (:value op)
        lt (cond
             (get v :resend?) nil
             (and (#{:acquire :renew :reserve :put :cas :refresh} (:f op)) (:expires-at-ms v) (:ttl-ms v))
             (- (:expires-at-ms v) (:ttl-ms v))
             (and (= :get (:f op)) (:read-at-ms v)) (:read-at-ms v))]
    (when (and lt (h/ok? op) (:invoke-time op))
      [(/ (+ (:invoke-time op) (:time op)) 2e6) lt])))

(defn- slope
  "Least-squares slope of y over x."
  [pts]
  (let [n (count pts)
        mx (/ (reduce + (map first pts)) n)
        my (/ (reduce + (map second pts)) n)
        sxx (reduce + (map #(let [d (- (first %) mx)] (* d d)) pts))
        sxy (reduce + (map #(* (- (first %) mx) (- (second %) my)) pts))]
    (when (pos? sxx) (/ sxy sxx))))

(defn ledger-clock
  "Report only (never fails): how fast the ledger's (log) clock ran, per stretch between
  nemesis ops — least-squares ledger ms per harness ms over the :ok ops that report a ledger
  time (lease grants and renewals, reservations, TTL writes and reads). ≈ 1.0 normally (wall
  clock bumps do not move it); ≈ r while a leader runs at r × real time (clock-rate nemeses).
  Each stretch names the leader the last nemesis op recorded."
  []
  (reify Checker
    (check [_ _ history _]
      (let [pts (->> (h/completions history) (keep ledger-point) (sort-by first))
            nem (filter #(= :nemesis (:process %)) history)
            cuts (distinct (sort (concat [Double/NEGATIVE_INFINITY] (map #(/ (:time %) 1e6) nem) [Double/POSITIVE_INFINITY])))
            leader-at (fn [t] (->> nem (filter #(and (<= (/ (:time %) 1e6) t) (map? (:value %)) (contains? (:value %) :leader)))
                                   last :value :leader))
            windows (vec (for [[a b] (partition 2 1 cuts)
                               :let [ps (filter #(and (>= (first %) a) (< (first %) b)) pts)]
                               :when (and (>= (count ps) 5) (>= (- (first (last ps)) (first (first ps))) 1000))
                               :let [r (slope ps)]
                               :when r]
                           {:from-s (/ (Math/round (/ (first (first ps)) 10.0)) 100.0)
                            :to-s (/ (Math/round (/ (first (last ps)) 10.0)) 100.0)
                            :points (count ps)
                            :rate (/ (Math/round (* 1000 r)) 1000.0)
                            :leader (leader-at (first (first ps)))}))]
        {:valid? true
         :points (count pts)
         :overall-rate (when (>= (count pts) 5) (some-> (slope pts) (* 1000) Math/round (/ 1000.0)))
         :windows (vec (take 40 windows))}))))

(defn lease-checker
  "Everything the lease workload is checked by."
  []
  (compose {:conservation (conservation)
            :admissions (admissions)
            :lifecycle (lifecycle)
            :unique-leases (unique-leases)
            :reads (reads)
            :stats (stats)
            :ledger-clock (ledger-clock)
            :exceptions (unhandled-exceptions)}))

;; ------------------------------------------------------------------ TTL entries and locks

(defn- precedes?
  "a completed (by the harness's clock) before b was invoked: real-time order."
  [a b]
  (< (:time a) (:invoke-time b)))

(defn ttl-freshness
  "Every :ok get that found an entry: its expiry (ledger ms) is after the read's readAtMillis
  (same clock, so exact: expired iff now ≥ expiresAt); its value was written by some put/cas
  invocation of that key (any outcome: :info writes may have happened); its (version, value)
  matches any :ok write that reported that version; and its version is not older than an :ok
  put/cas of the key that completed before the get was invoked (a stale read). A get through a
  near cache (:near? true) has no readAtMillis (memory knows no ledger time: its expiry is the
  cache's own bound, tested on real nodes) and is held to the cache's staleness rule instead:
  not older than an :ok put/cas that completed more than its :staleness-ms before it was
  invoked."
  []
  (reify Checker
    (check [_ _ history _]
      (let [cs (h/completions history)
            written (->> history
                         (filter #(and (h/invoke? %) (#{:put :cas} (:f %))))
                         (map (juxt #(get-in % [:value :key]) #(get-in % [:value :value])))
                         set)
            ok-writes (filter #(and (h/ok? %) (#{:put :cas} (:f %))) cs)
            by-version (into {} (for [w ok-writes] [[(get-in w [:value :key]) (get-in w [:value :version])]
                                                   (get-in w [:value :value])]))
            writes-by-key (group-by #(get-in % [:value :key]) ok-writes)
            gets (filter #(and (h/ok? %) (= :get (:f %)) (get-in % [:value :found?])) cs)
            errs (vec (for [g gets
                            :let [{:keys [key value version expires-at-ms read-at-ms near? staleness-ms]} (:value g)
                                  w (get by-version [key version])
                                  bound-ns (if near? (* 1000000 (long staleness-ms)) 0)
                                  newer (->> (writes-by-key key)
                                             (filter #(and (< (:time %) (- (:invoke-time g) bound-ns))
                                                           (> (get-in % [:value :version]) version)))
                                             (sort-by #(get-in % [:value :version]))
                                             last)]
                            e [(when (and read-at-ms (<= expires-at-ms read-at-ms))
                                 {:kind :expired-read :expires-at-ms expires-at-ms :read-at-ms read-at-ms})
                               (when-not (contains? written [key value])
                                 {:kind :never-written})
                               (when (and w (not= w value))
                                 {:kind :version-value-mismatch :written-value w})
                               (when newer
                                 {:kind (if near? :stale-near-read :stale-read) :newer-write-index (:index newer)
                                  :newer-version (get-in newer [:value :version])})]
                            :when e]
                        (merge {:index (:index g) :key key :value value :version version} e)))]
        {:valid? (empty? errs)
         :found-reads (count gets)
         :near-reads (count (filter #(get-in % [:value :near?]) gets))
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn- order-errors
  "For ops (all :ok, one group) with a number under k: every b invoked after a completed must
  have (cmp (k a) (k b)); reports the first pair per b."
  [ops k cmp kind]
  (for [b ops
        :let [a (first (filter #(and (precedes? % b) (not (cmp (k %) (k b)))) ops))]
        :when a]
    {:kind kind :earlier-index (:index a) :earlier (k a) :later-index (:index b) :later (k b)}))

(defn ttl-fencing
  "Per lock: an :ok acquisition that completed before another was invoked has a strictly
  smaller fencing token; no two :ok acquisitions share a token."
  []
  (reify Checker
    (check [_ _ history _]
      (let [locks (->> (h/completions history)
                       (filter #(and (h/ok? %) (= :lock (:f %))))
                       (group-by #(get-in % [:value :lock])))
            tok #(get-in % [:value :token])
            errs (vec (concat
                       (mapcat (fn [[l ops]] (map #(assoc % :lock l) (order-errors ops tok < :token-not-increasing))) locks)
                       (for [[l ops] locks, [t os] (group-by tok ops) :when (> (count os) 1)]
                         {:kind :duplicate-token :lock l :token t :indexes (mapv :index os)})))]
        {:valid? (empty? errs)
         :acquisitions (into (sorted-map) (for [[l ops] locks] [l (count ops)]))
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn ttl-versions
  "Per key: an :ok put/cas that completed before another :ok put/cas was invoked has a strictly
  smaller version; an :ok refresh (which keeps the version) reports one no smaller than any
  write that completed before it was invoked."
  []
  (reify Checker
    (check [_ _ history _]
      (let [cs (filter h/ok? (h/completions history))
            ver #(get-in % [:value :version])
            by-key (group-by #(get-in % [:value :key]) (filter #(#{:put :cas :refresh} (:f %)) cs))
            errs (vec (for [[k ops] by-key
                            :let [writes (filter #(#{:put :cas} (:f %)) ops)]
                            e (concat (order-errors writes ver < :version-not-increasing)
                                      (for [r (filter #(= :refresh (:f %)) ops)
                                            :let [w (first (filter #(and (precedes? % r) (> (ver %) (ver r))) writes))]
                                            :when w]
                                        {:kind :refresh-older-than-write :earlier-index (:index w) :earlier (ver w)
                                         :later-index (:index r) :later (ver r)}))]
                        (assoc e :key k)))]
        {:valid? (empty? errs)
         :writes (count (filter #(#{:put :cas} (:f %)) cs))
         :error-count (count errs)
         :errors (vec (take 10 errs))}))))

(defn ttl-checker
  "Everything the ttl workload is checked by."
  []
  (compose {:freshness (ttl-freshness)
            :fencing (ttl-fencing)
            :versions (ttl-versions)
            :stats (stats #{:get :put :cas :refresh :lock})
            :ledger-clock (ledger-clock)
            :exceptions (unhandled-exceptions)}))
