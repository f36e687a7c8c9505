(ns ration.jepsen.uncertain-removal-it
  "Three real nodes on loopback: a remove whose answer is a time-out but which commits once the
  fault heals. The membership nemesis must notice at its next add that the node it still counted
  as a member is out of the configuration, settle it (wipe, add back) and end with every node a
  live voter — what a matrix cell's :members checker demands. A leader elected while that remove
  was pending streams to the removed node for its term; the server hands leadership on
  (event=stale_replication_stream) so that the node can be added back."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is]]
            [clojure.tools.logging :refer [info]]
            [ration.jepsen.db :as db]
            [ration.jepsen.nemesis :as nemesis]
            [ration.jepsen.net :as net]
            [ration.jepsen.util :as u]))

(defn- add-all!
  "The membership nemesis's :add-node, as the final heal runs it."
  [t]
  (:value (nemesis/invoke! (nemesis/membership) t {:type :info :process :nemesis :f :add-node
                                                    :value {:nodes :all :timeout-s 60}})))

(defn- removed-late?
  "Pauses both followers just after they last answered (the leader still counts them up to date,
  proposes the change and cannot commit it within the 2 s wait), asks to remove one, resumes
  them, and waits for the change to commit. Returns [target result committed?]."
  [d t]
  (let [leader (first (u/await-fn #(seq (db/primaries d t)) 30000 250))
        followers (vec (remove #{leader} (:nodes t)))
        target (first followers)
        _ (doseq [f followers] (db/pause! d t f))
        r (try (db/remove-node! d t target 2)
               (finally (doseq [f followers] (db/resume! d t f))))
        committed? (boolean (and (:uncertain r)
                                 (u/await-fn #(when-let [s (some (fn [n] (#'db/status d n)) (db/primaries d t))]
                                                (not (some #{(name target)} (map :id (:peers s)))))
                                             30000 250)))]
    [target r committed?]))

(deftest a-remove-that-commits-after-its-time-out-is-settled-and-added-back
  (let [dir (io/file (System/getProperty "java.io.tmpdir") "rtn-uncertain-removal"
                     (str (System/currentTimeMillis)))
        d (db/ration-db dir)
        t {:nodes [:n1 :n2 :n3] :net (net/->LoopbackNet) :start-timeout-s 90 :db d}]
    (try
      (db/setup! d t)
      (is (:recovered? (db/await-recovery! d t 60000)) "the cluster is whole before the fault")
      ;; The timing is the machine's: a leader that steps down first answers before proposing, a
      ;; slow pause leaves the followers behind (412). Each miss is healed, then tried again.
      (let [[target r committed?]
            (loop [try-no 1]
              (let [[target r committed?] (removed-late? d t)]
                (if (or committed? (>= try-no 4))
                  [target r committed?]
                  (do (info "no late commit on try" try-no ":" (pr-str r) "- healing, trying again")
                      (add-all! t)
                      (db/await-recovery! d t 60000)
                      (recur (inc try-no))))))]
        (is committed? (str "a remove answered as uncertain committed late: " (pr-str r)))
        (is (= :uncertain (get @(:removed d) target)))
        (when committed?
          (let [v (add-all! t)]
            (is (= [target :removed] ((juxt :settled :as) (first (:settled v)))) (pr-str v))
            (is (= [target] (mapv :added (:results v))) (pr-str v))
            (let [rec (db/await-recovery! d t 60000)]
              (is (:recovered? rec) (pr-str rec))
              (is (= ["n1" "n2" "n3"] (:voters rec)) (pr-str rec))))
          (info "stale streams handed off:"
                (count (filter #(str/includes? % "event=stale_replication_stream ")
                               (mapcat #(str/split-lines (slurp (first %))) (vals (db/log-files d t))))))))
      (finally
        (db/teardown! d t)
        ;; -Dration.jepsen.keep=true keeps the nodes' logs and data for a look afterwards.
        (when-not (Boolean/getBoolean "ration.jepsen.keep")
          (u/sh-quiet "rm" "-rf" (str dir)))))))
