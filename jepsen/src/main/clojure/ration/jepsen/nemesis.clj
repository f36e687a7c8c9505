(ns ration.jepsen.nemesis
  "Jepsen's nemesis protocol and the faults Ration's suite injects: partitions and packet loss
  (iptables inside the nodes' namespaces), kill -9 and restart, SIGSTOP/SIGCONT, and wall-clock
  bumps and strobes (libfaketime timestamp files), and membership changes (a voter removed and
  wiped, added back empty with --join). Nemesis ops are :info on invocation and completion.
  Targets: :one :minority :majority :all :primaries (nodes that say they lead), drawn from the
  nodes that should run (a node the membership nemesis removed and wiped is not a target; one
  it is adding back is)."
  (:require [clojure.set]
            [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.net :as net]
            [ration.jepsen.util :as u]))

(defprotocol Nemesis
  (setup! [n test] "Prepares; returns the nemesis.")
  (invoke! [n test op] "Applies the fault op; returns its completion.")
  (teardown! [n test] "Heals everything this nemesis may have done."))

(def noop
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ _ op] (assoc op :type :info))
    (teardown! [_ _])))

(defn compose
  "Routes each op to the nemesis whose :fs set contains its :f. nemeses: {#{fs} nemesis}."
  [nemeses]
  (reify Nemesis
    (setup! [_ test] (compose (into {} (map (fn [[fs n]] [fs (setup! n test)])) nemeses)))
    (invoke! [_ test op]
      (if-let [n (some (fn [[fs n]] (when (fs (:f op)) n)) nemeses)]
        (invoke! n test op)
        (assoc op :type :info :error [:no-nemesis-for (:f op)])))
    (teardown! [_ test] (doseq [n (vals nemeses)] (teardown! n test)))))

;; ------------------------------------------------------------------ targets

(defn majority [n] (inc (quot n 2)))

(defn primaries [test] (vec (db/primaries (:db test) test)))

(defn pick-targets
  "Nodes for a target spec, among the nodes the membership nemesis has not taken out."
  [test spec]
  (let [nodes (db/startable (:db test) test)
        shuffled (sort-by (fn [_] (gen/rand-double)) nodes)]
    (case spec
      :one [(gen/rand-nth* nodes)]
      :minority (vec (take (dec (majority (count nodes))) shuffled))
      :majority (vec (take (majority (count nodes)) shuffled))
      :all nodes
      :primaries (let [p (primaries test)] (if (seq p) p [(gen/rand-nth* nodes)]))
      (vec spec))))

;; ------------------------------------------------------------------ grudges (node -> nodes it drops)

(defn complete-grudge
  "Every component drops traffic from every other component."
  [components]
  (let [components (map set components)
        all (apply clojure.set/union components)]
    (into {} (for [c components, n c] [n (sort (clojure.set/difference all c))]))))

(defn bisect [nodes] (split-at (quot (count nodes) 2) nodes))

(defn bridge-grudge
  "Two halves that only the middle node still talks to (5 nodes: a b | c | d e)."
  [nodes]
  (let [nodes (vec nodes), m (quot (count nodes) 2)
        left (subvec nodes 0 m), right (subvec nodes (inc m))]
    (merge (into {} (for [n left] [n right])) (into {} (for [n right] [n left])))))

(defn majorities-ring-grudge
  "Every node sees a majority (itself and its ring neighbours), but no two nodes see the same
  one: exact for 5 nodes, where each node drops the two nodes opposite it."
  [nodes]
  (let [nodes (vec nodes), n (count nodes)]
    (into {} (for [i (range n)]
               [(nodes i) (vec (for [j (range n)
                                     :let [d (mod (- j i) n)]
                                     :when (and (not= d 0) (not= d 1) (not= d (dec n)))]
                                 (nodes j)))]))))

(defn one-way-grudge
  "target stops hearing from every other node (it can still send): a one-way cut."
  [nodes target]
  {target (vec (remove #{target} nodes))})

(defn partition-grudge
  [test spec]
  (let [nodes (vec (:nodes test))]
    (case spec
      :primaries (let [p (pick-targets test :primaries)] (complete-grudge [p (remove (set p) nodes)]))
      :one (let [t (pick-targets test :one)] (complete-grudge [t (remove (set t) nodes)]))
      :majority (let [[a b] (bisect (sort-by (fn [_] (gen/rand-double)) nodes))] (complete-grudge [a b]))
      :one-way-primary (one-way-grudge nodes (first (pick-targets test :primaries)))
      :bridge (bridge-grudge (sort-by (fn [_] (gen/rand-double)) nodes))
      :majorities-ring (majorities-ring-grudge (sort-by (fn [_] (gen/rand-double)) nodes)))))

(defn partitioner
  "Ops {:f :start-partition :value spec} / {:f :stop-partition}."
  []
  (reify Nemesis
    (setup! [this test] (net/heal! (:net test) test) this)
    (invoke! [_ test op]
      (case (:f op)
        :start-partition (let [g (partition-grudge test (:value op))]
                           (net/drop-grudge! (:net test) test g)
                           (assoc op :type :info :value {:spec (:value op) :grudge g}))
        :stop-partition (do (net/heal! (:net test) test) (assoc op :type :info :value :healed))))
    (teardown! [_ test] (net/heal! (:net test) test))))

(defn client-partitioner
  "Ops {:f :start-client-partition :value spec} / {:f :stop-client-partition}: the target nodes
  drop every packet from the harness to their client port, so the clients living in the
  harness (limiters, worker pools and their slot leases) lose those nodes while the nodes still
  reach each other and the harness still reaches their admin ports. Spec :all cuts the clients
  off from the whole cluster; :primaries from the leader only (they must find another node).
  Netns mode only."
  []
  (reify Nemesis
    (setup! [this test] (net/heal! (:net test) test) this)
    (invoke! [_ test op]
      (case (:f op)
        :start-client-partition
        (let [ts (pick-targets test (:value op))]
          (doseq [n ts]
            (apply u/sh! (concat (net/exec-prefix (:net test) n)
                                 ["iptables" "-w" "-A" "INPUT" "-s" net/harness-ip "-p" "tcp"
                                  "--dport" (str (:client db/ports)) "-j" "DROP"])))
          (assoc op :type :info :value {:spec (:value op) :cut-off-from ts}))
        :stop-client-partition (do (net/heal! (:net test) test) (assoc op :type :info :value :healed))))
    (teardown! [_ test] (net/heal! (:net test) test))))

(defn packet-loss
  "Ops {:f :start-loss :value probability} / {:f :stop-loss}: random loss on every node's input."
  []
  (reify Nemesis
    (setup! [this test] (net/heal! (:net test) test) this)
    (invoke! [_ test op]
      (case (:f op)
        :start-loss (do (net/lossy! (:net test) test (:nodes test) (:value op)) (assoc op :type :info))
        :stop-loss (do (net/heal! (:net test) test) (assoc op :type :info :value :healed))))
    (teardown! [_ test] (net/heal! (:net test) test))))

(defn killer
  "Ops {:f :kill :value spec} (kill -9) / {:f :start} (restart every dead node)."
  []
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ test op]
      (case (:f op)
        :kill (let [ts (pick-targets test (:value op))]
                (doseq [n ts] (db/kill! (:db test) test n))
                (assoc op :type :info :value {:spec (:value op) :killed ts}))
        :start (let [started (db/start-all! (:db test) test)]
                 (assoc op :type :info :value {:started started}))))
    (teardown! [_ test] (db/start-all! (:db test) test))))

(defn pauser
  "Ops {:f :pause :value spec} (SIGSTOP) / {:f :resume} (SIGCONT to every paused node)."
  []
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ test op]
      (case (:f op)
        :pause (let [ts (pick-targets test (:value op))]
                 (doseq [n ts] (db/pause! (:db test) test n))
                 (assoc op :type :info :value {:spec (:value op) :paused ts}))
        :resume (do (doseq [n (:nodes test)] (db/resume! (:db test) test n))
                    (assoc op :type :info :value :resumed))))
    (teardown! [_ test] (doseq [n (:nodes test)] (db/resume! (:db test) test n)))))

(defn clock-rate
  "Ops {:f :rate :value {:targets spec :rate r}} (restart targets with every clock, monotonic
  included, running at r × real time: a fast or slow node) and {:f :reset-rate} (restart the
  skewed nodes at real rate). Needs libfaketime.

  Restarting a leader ends its leadership, and the log clock is the leader's: so after the
  restart the first skewed target is made leader again (admin POST /transfer-leadership),
  and the op records who leads (:leader), whether the transfer worked, and the new leader's
  ledger clock rate sampled over 2 s (/status ledgerNowMillis: ≈ r when the skew bites)."
  []
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ test op]
      (case (:f op)
        :rate (let [{:keys [targets rate]} (:value op)
                    ts (pick-targets test targets)
                    before (primaries test)]
                (if-not (:faketime? (:db test))
                  (assoc op :type :info :error [:no-libfaketime "rate skew needs libfaketime (apt-get install -y faketime)"])
                  (do (doseq [n ts] (db/restart-with-rate! (:db test) test n rate))
                      (let [t (db/transfer-leadership! (:db test) test (first ts))
                            leader (first (:leader t))]
                        (assoc op :type :info
                               :value {:spec targets :rate rate :restarted ts :leader-before before
                                       :transferred? (:transferred? t) :leader (:leader t)
                                       :transfer-attempts (:attempts t)
                                       :leader-ledger-rate (when leader (db/ledger-rate (:db test) leader 2000))})))))
        :reset-rate (let [ts (vec (keys @(:rates (:db test))))]
                      (doseq [n ts] (db/restart-with-rate! (:db test) test n nil))
                      (assoc op :type :info :value {:restarted ts :leader (primaries test)}))))
    (teardown! [_ _])))

(defn- bump-ms
  "Jepsen's bump sizes: ±1.5^(6..31) ms (≈ 11 ms to 4.8 min)."
  []
  (let [ms (long (Math/pow 1.5 (+ 6 (gen/rand-int* 26))))]
    (if (< (gen/rand-double) 0.5) (- ms) ms)))

(defn clock
  "Ops {:f :bump :value spec} (jump targets' wall clocks), {:f :strobe :value spec} (flip their
  clocks between two offsets every few ms for a few seconds), {:f :reset} (offsets to 0).
  Only the wall clock moves: nodes run with FAKETIME_DONT_FAKE_MONOTONIC=1."
  []
  (reify Nemesis
    (setup! [this test] (doseq [n (:nodes test)] (db/set-clock-offset! (:db test) test n 0)) this)
    (invoke! [_ test op]
      (case (:f op)
        :bump (let [ts (pick-targets test (:value op))
                    offsets (into {} (for [n ts] [n (bump-ms)]))]
                (doseq [[n ms] offsets] (db/set-clock-offset! (:db test) test n ms))
                (assoc op :type :info :value {:spec (:value op) :offsets-ms offsets}))
        :strobe (let [ts (pick-targets test (:value op))
                      delta (Math/abs (long (bump-ms)))
                      period-ms (+ 1 (gen/rand-int* 200))
                      duration-ms (+ 2000 (gen/rand-int* 8000))
                      deadline (+ (System/nanoTime) (* duration-ms 1000000))]
                  (loop [flip false, i 0]
                    (when (and (< (System/nanoTime) deadline) (< i 100000))
                      (doseq [n ts] (db/set-clock-offset! (:db test) test n (if flip delta 0)))
                      (Thread/sleep (long period-ms))
                      (recur (not flip) (inc i))))
                  (doseq [n ts] (db/set-clock-offset! (:db test) test n 0))
                  (assoc op :type :info :value {:spec (:value op) :delta-ms delta :period-ms period-ms
                                                :duration-ms duration-ms}))
        :reset (do (doseq [n (:nodes test)] (db/set-clock-offset! (:db test) test n 0))
                   (assoc op :type :info :value :reset))))
    (teardown! [_ test] (doseq [n (:nodes test)] (db/set-clock-offset! (:db test) test n 0)))))

;; ------------------------------------------------------------------ membership

(defn- restart-before-add?
  "Whether a node the membership nemesis brings back is killed and restarted with --join before
  its add: drawn per node with probability 1/2, from the nemesis's random source like its
  targets, so both paths (a newcomer added at once, one that crashed first) keep being run."
  []
  (< (gen/rand-double) 0.5))

(defn membership
  "Ops {:f :remove-node :value spec} and {:f :add-node :value :all}.

  :remove-node takes one voter (spec :one: a random member; :primaries: the leader) out of the
  replicated configuration through the leader's admin endpoint (Ratis setConfiguration), then
  stops it and wipes its data directory. It never plans to leave fewer voters than a majority
  of the original cluster (at most 1 of 3, 2 of 5 out at once: `:skipped`); the server's own
  refusals (412: the change would lose the majority, or the current voters are not up to date
  — under a partition or after a kill) are recorded as `:refused` with its answer.

  :add-node first settles every remove whose outcome was uncertain (db/settle-removal!: a
  timed-out remove may have committed later, leaving a running node outside the configuration),
  then brings back every node taken out: started empty with --join and added through the
  leader's admin endpoint (listener, caught up, promoted), retried within :timeout-s (default
  20 s; the final heal passes the recovery timeout). A node not added in time stays :joining
  and the next :add-node resumes it. Half the newcomers (restart-before-add?) are killed once
  their admin port answers and started again with --join on the storage they have before the
  add is asked for (:restarted-before-add true in their result): a node that crashed before
  its add must come back waiting for it, not campaign as a voter of its file's peers."
  []
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ test op]
      (let [d (:db test)]
        (case (:f op)
          :remove-node
          (let [out (count @(:removed d))
                budget (- (count (:nodes test)) (majority (count (:nodes test))))
                candidates (db/members d test)]
            (if (or (>= out budget) (empty? candidates))
              (assoc op :type :info :value {:spec (:value op) :skipped [:out-of-budget (vec (sort (keys @(:removed d))))]})
              (let [target (first (if (= :primaries (:value op))
                                    (let [p (primaries test)] (if (seq p) p [(gen/rand-nth* candidates)]))
                                    [(gen/rand-nth* candidates)]))
                    r (db/remove-node! d test target 10)]
                (assoc op :type :info :value (assoc r :spec (:value op))))))
          :add-node
          (let [timeout-s (or (when (map? (:value op)) (:timeout-s (:value op))) 20)
                settled (vec (for [[n state] (sort @(:removed d)) :when (= :uncertain state)]
                               (db/settle-removal! d test n timeout-s)))
                ts (vec (sort (keep (fn [[n state]] (when (not= :uncertain state) n)) @(:removed d))))]
            (assoc op :type :info
                   :value {:nodes ts
                           :settled settled
                           :results (vec (for [n ts]
                                           (db/add-node! d test n timeout-s
                                                         {:restart-before-add? (restart-before-add?)})))})))))
    (teardown! [_ _])))

(defn membership-rogue
  "Breaks the membership procedure on purpose, to show the checkers see lost acknowledged
  writes: {:f :wipe-majority-in-place} kills every member, wipes the data directories of a
  majority of them WITHOUT `cluster remove` and restarts those at once without --join (so, on
  empty disks, they form the cluster of their configuration files anew and elect a leader
  among themselves), keeping the rest — the only copies of the acknowledged history — down
  until {:f :start} restarts them. Never part of a matrix; expected :valid? false."
  []
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ test op]
      (let [d (:db test)]
        (case (:f op)
          :wipe-majority-in-place
          (let [nodes (db/members d test)
                wiped (vec (take (majority (count (:nodes test))) (sort-by (fn [_] (gen/rand-double)) nodes)))]
            (doseq [n nodes] (db/kill! d test n))
            (doseq [n wiped] (db/wipe-data! d n))
            (doseq [n wiped] (db/start! d test n))
            (assoc op :type :info :value {:killed nodes :wiped-and-restarted wiped
                                          :kept-down (vec (remove (set wiped) nodes))}))
          :start (assoc op :type :info :value {:started (db/start-all! d test)}))))
    (teardown! [_ test] (db/start-all! (:db test) test))))

;; ------------------------------------------------------------------ packages: nemesis + generators

(def kinds
  "Nemesis kind -> [constructor, the :f values it handles]."
  {:partition [partitioner #{:start-partition :stop-partition}]
   :loss [packet-loss #{:start-loss :stop-loss}]
   :kill [killer #{:kill :start}]
   :pause [pauser #{:pause :resume}]
   :clock [clock #{:bump :strobe :reset}]
   :clock-rate [clock-rate #{:rate :reset-rate}]
   :client-partition [client-partitioner #{:start-client-partition :stop-client-partition}]
   :membership [membership #{:remove-node :add-node}]
   :membership-rogue [membership-rogue #{:wipe-majority-in-place :start}]})

(def faults
  "Fault name -> the kind of nemesis, the ops that start it (one chosen at random each time)
  and the op that heals it."
  {:partition-leader {:kind :partition :start [{:f :start-partition :value :primaries}] :stop {:f :stop-partition}}
   :partition-one {:kind :partition :start [{:f :start-partition :value :one}] :stop {:f :stop-partition}}
   :partition-majority {:kind :partition :start [{:f :start-partition :value :majority}] :stop {:f :stop-partition}}
   :partition-one-way {:kind :partition :start [{:f :start-partition :value :one-way-primary}] :stop {:f :stop-partition}}
   :partition-bridge {:kind :partition :start [{:f :start-partition :value :bridge}] :stop {:f :stop-partition}}
   :partition-ring {:kind :partition :start [{:f :start-partition :value :majorities-ring}] :stop {:f :stop-partition}}
   :lossy {:kind :loss :start [{:f :start-loss :value 0.25}] :stop {:f :stop-loss}}
   :kill {:kind :kill :start [{:f :kill :value :one} {:f :kill :value :primaries}
                              {:f :kill :value :majority} {:f :kill :value :all}] :stop {:f :start}}
   :kill-all {:kind :kill :start [{:f :kill :value :all}] :stop {:f :start}}
   :pause-leader {:kind :pause :start [{:f :pause :value :primaries}] :stop {:f :resume}}
   :pause {:kind :pause :start [{:f :pause :value :primaries} {:f :pause :value :one}
                                {:f :pause :value :majority}] :stop {:f :resume}}
   :clock-bump {:kind :clock :start [{:f :bump :value :primaries} {:f :bump :value :majority}
                                     {:f :bump :value :one}] :stop {:f :reset}}
   :clock-strobe {:kind :clock :start [{:f :strobe :value :primaries} {:f :strobe :value :majority}] :stop {:f :reset}}
   ;; Within the documented drift bound: the harness's holders stop at ttl·(1−ε), ε = 0.1, so a
   ;; leader whose clocks run ≤ 1/(1−ε) ≈ 1.11× fast (or any slower) must stay safe.
   :clock-rate-within {:kind :clock-rate :start [{:f :rate :value {:targets :primaries :rate 1.1}}
                                                 {:f :rate :value {:targets :majority :rate 0.9}}]
                       :stop {:f :reset-rate}}
   ;; Beyond it (2× fast leader): expected to break; the result is reported, never failed.
   :clock-rate-beyond {:kind :clock-rate :start [{:f :rate :value {:targets :primaries :rate 2.0}}]
                       :stop {:f :reset-rate}}
   ;; The harness's clients (not the nodes) cut off: from every node, or from the leader only.
   :partition-clients {:kind :client-partition :start [{:f :start-client-partition :value :all}
                                                       {:f :start-client-partition :value :primaries}]
                       :stop {:f :stop-client-partition}}
   ;; A voter removed (a random one or the leader) and wiped, later added back empty.
   :membership {:kind :membership :start [{:f :remove-node :value :one} {:f :remove-node :value :primaries}]
                :stop {:f :add-node :value :all}}
   ;; Misbehaving on purpose (the checker must bite): a majority's disks wiped without
   ;; `cluster remove`, restarted as a new cluster while the old history is down.
   :membership-rogue {:kind :membership-rogue :start [{:f :wipe-majority-in-place}] :stop {:f :start}}})

(def membership-faults
  "Faults that remove and add voters: their cells are also judged on the end state."
  #{:membership :membership-kill :membership-partition})

(def misbehaving-faults
  "Faults that break the documented procedures on purpose: never in a matrix, expected invalid."
  #{:membership-rogue})

(def composite-faults
  "Faults that run a membership change inside another fault's window: fault name -> [the fault
  whose changes run inside, the fault around them]. Each cycle has two halves: the outer fault
  starts, a node is removed while it lasts, it heals, the node is added back; then a node is
  removed, the outer fault starts, the node is added back while it lasts, it heals."
  {:membership-kill [:membership :kill]
   :membership-partition [:membership :partition-any]})

(def ^:private partition-any
  {:kind :partition :start [{:f :start-partition :value :primaries} {:f :start-partition :value :one}
                            {:f :start-partition :value :majority}]
   :stop {:f :stop-partition}})

(def expected-unsafe
  "Faults outside the documented assumptions: their checker result is reported, not failed."
  #{:clock-rate-beyond})

(def network-faults
  "Faults that need the netns topology (not available in loopback mode)."
  #{:partition-leader :partition-one :partition-majority :partition-one-way :partition-bridge
    :partition-ring :lossy :partition-clients :membership-partition})

(def mixed-faults
  [:partition-leader :pause-leader :kill :clock-bump :lossy :partition-majority :clock-strobe])

(defn recovery-waiter
  "Op {:f :await-recovery :value {:timeout-s N}}: after the final heal, waits (bounded) until
  every node is /ready and one leads, so final reads measure the system, not JVM start-up on a
  loaded machine. Its completion records the time-to-recovery."
  []
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ test op]
      (let [r (db/await-recovery! (:db test) test (long (* 1000 (:timeout-s (:value op) 90))))]
        (when-not (:recovered? r) (warn "no recovery within" (:timeout-s r) "s after the final heal:" r))
        (assoc op :type :info :value r)))
    (teardown! [_ _])))

(defn- fault-def [name]
  (or (faults name) ({:partition-any partition-any} name)
      (throw (IllegalArgumentException. (str "unknown fault " name "; known: "
                                             (sort (concat (keys faults) (keys composite-faults))))))))

(defn- start-op [f] (gen/once (fn [_ _] (gen/rand-nth* (:start f)))))

(defn- overlay-generator
  "One cycle of a composite fault: inner (a membership change) inside outer's window, then
  outer inside inner's (see composite-faults)."
  [inner outer interval hold]
  (let [i2 (/ interval 2.0), h2 (/ hold 2.0)]
    [(gen/sleep i2) (start-op outer) (gen/sleep h2) (start-op inner) (gen/sleep h2) (:stop outer)
     (gen/sleep i2) (:stop inner)
     (gen/sleep i2) (start-op inner) (gen/sleep h2) (start-op outer) (gen/sleep h2) (:stop inner)
     (gen/sleep h2) (:stop outer)]))

(defn package
  "{:nemesis :generator :final-generator} for a list of fault names, cycled: wait interval-s,
  start a fault, hold it hold-s, heal it (a composite fault: its own cycle, overlay-generator).
  :final-generator heals every kind used — membership last, so the removed nodes are added back
  to a cluster that is whole again — then waits (at most recovery-s) for every node to be ready
  and a leader (:await-recovery)."
  [fault-names {:keys [interval hold recovery-s] :or {recovery-s 90}}]
  (let [parts (mapv (fn [n] (if-let [[inner outer] (composite-faults n)]
                              {:composite [(fault-def inner) (fault-def outer)]}
                              {:single (fault-def n)}))
                    fault-names)
        fs (vec (mapcat #(or (:composite %) [(:single %)]) parts))
        used-kinds (distinct (map :kind fs))
        stops (distinct (map :stop fs))
        membership? #(= :add-node (:f %))]
    (if (empty? fs)
      {:nemesis noop :generator nil :final-generator nil}
      {:nemesis (compose (into {#{:await-recovery} (recovery-waiter)}
                               (for [k used-kinds :let [[ctor f-set] (kinds k)]] [f-set (ctor)])))
       :generator (gen/cycle (for [p parts]
                               (if-let [[inner outer] (:composite p)]
                                 (overlay-generator inner outer interval hold)
                                 (let [f (:single p)]
                                   [(gen/sleep interval) (start-op f) (gen/sleep hold) (:stop f)]))))
       :final-generator (conj (vec (concat (remove membership? stops)
                                           (for [s (filter membership? stops)]
                                             (assoc s :value {:nodes :all :timeout-s recovery-s}))))
                              {:f :await-recovery :value {:timeout-s recovery-s}})})))

(defn nemesis-package
  "The package for a --nemesis name: a fault, :mixed, or :none."
  [nemesis-name opts]
  (case nemesis-name
    :none (package [] opts)
    :mixed (package (if (:netns? opts) mixed-faults (remove network-faults mixed-faults)) opts)
    (package [nemesis-name] opts)))
