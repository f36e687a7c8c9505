(ns ration.jepsen.generator
  "Generators as pure values, in Jepsen's model. (op gen test ctx) returns nil (exhausted),
  [:pending gen'] (nothing yet; ask again later) or [op gen']. ctx is
  {:time ns-since-start, :free-threads #{...}, :threads [0 .. n-1 :nemesis], :workers {thread process}}.

  A map is a one-shot op; a sequence runs its elements in turn; a function is called with
  (test ctx) and its result used as a generator (re-called when that is exhausted, until it
  returns nil). Randomness comes from *rng*, seeded from the test's :seed."
  (:refer-clojure :exclude [repeat delay cycle]))

(def ^:dynamic ^java.util.Random *rng* (java.util.Random. 0))

(defn rand-double [] (.nextDouble *rng*))
(defn rand-int* [n] (if (pos? n) (.nextInt *rng* (int n)) 0))
(defn rand-nth* [coll] (let [v (vec coll)] (v (rand-int* (count v)))))

(defprotocol Generator
  (op [gen test ctx] "nil, [:pending gen'] or [op gen']."))

(defn- free-thread
  "A random free thread eligible in ctx (from *rng*, so a seed reproduces the choice)."
  [ctx]
  (let [free (sort-by (fn [t] (if (= :nemesis t) Long/MAX_VALUE t)) (:free-threads ctx))]
    (when (seq free)
      (rand-nth* free))))

(defn fill-op
  "Completes a bare op map for the context: :type :invoke, :time, :process of a free thread."
  [o ctx]
  (when-let [t (free-thread ctx)]
    (merge {:type :invoke, :time (:time ctx), :process (get (:workers ctx) t t)} o)))

(extend-protocol Generator
  nil
  (op [_ _ _] nil)

  clojure.lang.IPersistentMap
  (op [m _ ctx]
    (if-let [o (fill-op m ctx)]
      [o nil]
      [:pending m]))

  clojure.lang.Sequential
  (op [s test ctx]
    (loop [s (seq s)]
      (when s
        (let [r (op (first s) test ctx)]
          (cond
            (nil? r) (recur (next s))
            (= :pending (first r)) [:pending (cons (second r) (rest s))]
            :else [(first r) (cons (second r) (rest s))])))))

  clojure.lang.Fn
  (op [f test ctx]
    (when-let [g (f test ctx)]
      (let [r (op g test ctx)]
        (cond
          (nil? r) nil
          (= :pending (first r)) [:pending [(second r) f]]
          :else [(first r) [(second r) f]])))))

;; ------------------------------------------------------------------ thread routing

(defrecord OnThreads [pred gen]
  Generator
  (op [this test ctx]
    ;; Both the free threads and the thread universe are restricted, so a synchronize (phases)
    ;; nested inside waits only for these threads.
    (let [ctx' (-> ctx
                   (update :free-threads #(into #{} (filter pred) %))
                   (update :threads #(vec (filter pred %))))]
      (when-let [r (op gen test ctx')]
        [(first r) (assoc this :gen (second r))]))))

(defn on-threads [pred gen] (->OnThreads pred gen))
(defn clients "Only client threads." [gen] (on-threads integer? gen))
(defn nemesis "Only the nemesis thread." [gen] (on-threads #{:nemesis} gen))
(defn clients+nemesis
  "Client ops from client-gen and nemesis ops from nemesis-gen, interleaved by time."
  [client-gen nemesis-gen]
  (reify Generator
    (op [_ test ctx]
      (let [a (op (clients client-gen) test ctx)
            b (op (nemesis nemesis-gen) test ctx)]
        (cond
          (and (nil? a) (nil? b)) nil
          (nil? a) [(first b) (clients+nemesis nil (:gen (second b)))]
          (nil? b) [(first a) (clients+nemesis (:gen (second a)) nil)]
          ;; A side that is :pending keeps its updated generator even when the other side's op
          ;; goes: its state (a sleep's deadline) must survive, or a busy client side would
          ;; restart the nemesis's sleep at every op and the nemesis would never act.
          (= :pending (first a)) (if (= :pending (first b))
                                   [:pending (clients+nemesis (:gen (second a)) (:gen (second b)))]
                                   [(first b) (clients+nemesis (:gen (second a)) (:gen (second b)))])
          (= :pending (first b)) [(first a) (clients+nemesis (:gen (second a)) (:gen (second b)))]
          ;; Both ready: the sooner op goes; the other generator is left as it was.
          ;; The sooner wins; a tie is broken at random so neither side starves.
          (or (< (:time (first a)) (:time (first b)))
              (and (= (:time (first a)) (:time (first b))) (< (rand-double) 0.5)))
          [(first a) (clients+nemesis (:gen (second a)) nemesis-gen)]
          :else [(first b) (clients+nemesis client-gen (:gen (second b)))])))))

;; ------------------------------------------------------------------ combinators

(defrecord Limit [remaining gen]
  Generator
  (op [this test ctx]
    (when (pos? remaining)
      (when-let [r (op gen test ctx)]
        (if (= :pending (first r))
          [:pending (assoc this :gen (second r))]
          [(first r) (->Limit (dec remaining) (second r))])))))

(defn limit "At most n ops of gen." [n gen] (->Limit n gen))
(defn once "Just one op of gen." [gen] (limit 1 gen))

(defrecord Repeat [gen]
  Generator
  (op [this test ctx]
    (when-let [r (op gen test ctx)]
      ;; The same generator, unchanged, every time: a map repeats forever.
      [(first r) this])))

(defn repeat "Repeats the first op of gen forever (gen is typically a map)." [gen] (->Repeat gen))

(defn cycle "Runs the sequence of generators over and over." [gens]
  (clojure.core/cycle gens))

(defrecord Mix [gens]
  Generator
  (op [this test ctx]
    (loop [gens gens]
      (when (seq gens)
        (let [i (rand-int* (count gens))
              r (op (nth gens i) test ctx)]
          (cond
            (nil? r) (recur (into (subvec gens 0 i) (subvec gens (inc i))))
            (= :pending (first r)) [:pending (->Mix (assoc gens i (second r)))]
            :else [(first r) (->Mix (assoc gens i (second r)))]))))))

(defn mix "A random one of gens for each op." [gens] (->Mix (vec gens)))

(defrecord Stagger [dt-ns next-time gen]
  Generator
  (op [this test ctx]
    (when-let [r (op gen test ctx)]
      (if (= :pending (first r))
        [:pending (assoc this :gen (second r))]
        (let [o (first r)
              t (max (:time o) (or next-time (:time ctx)))
              gap (long (* 2 dt-ns (rand-double)))]
          [(assoc o :time t) (->Stagger dt-ns (+ t gap) (second r))])))))

(defn stagger
  "Ops spaced by uniform random gaps in [0, 2 dt): about 1/dt ops per second in total."
  [dt-seconds gen]
  (->Stagger (long (* dt-seconds 1e9)) nil gen))

(defrecord TimeLimit [dt-ns deadline gen]
  Generator
  (op [this test ctx]
    (let [deadline (or deadline (+ (:time ctx) dt-ns))]
      (when (< (:time ctx) deadline)
        (when-let [r (op gen test ctx)]
          (cond
            (= :pending (first r)) [:pending (->TimeLimit dt-ns deadline (second r))]
            (>= (:time (first r)) deadline) nil
            :else [(first r) (->TimeLimit dt-ns deadline (second r))]))))))

(defn time-limit "Ops of gen until dt seconds after its first request." [dt-seconds gen]
  (->TimeLimit (long (* dt-seconds 1e9)) nil gen))

(defrecord Sleep [dt-ns deadline]
  Generator
  (op [this _ ctx]
    (let [deadline (or deadline (+ (:time ctx) dt-ns))]
      (when (< (:time ctx) deadline)
        [:pending (->Sleep dt-ns deadline)]))))

(defn sleep "Emits nothing for dt seconds (never reaches the history)." [dt-seconds]
  (->Sleep (long (* dt-seconds 1e9)) nil))

(defrecord Synchronize [gen]
  Generator
  (op [this test ctx]
    (if (= (set (:free-threads ctx)) (set (:threads ctx)))
      (op gen test ctx)
      [:pending this])))

(defn synchronize "Waits until every thread is free, then behaves as gen." [gen] (->Synchronize gen))

(defn phases "Each generator in turn, each starting when all threads are free." [& gens]
  (map synchronize gens))

(defn then "a, then (after all threads are free) b." [a b] [a (synchronize b)])

(defrecord EachThreadOnce [o gens]
  Generator
  (op [this test ctx]
    (let [gens (or gens (mapv (fn [t] (on-threads #{t} (once o)))
                              (filter integer? (:threads ctx))))]
      (when-let [r (op gens test ctx)]
        [(first r) (->EachThreadOnce o (second r))]))))

(defn each-thread-once
  "The op o once on every client thread (e.g. final reads)."
  [o]
  (->EachThreadOnce o nil))
