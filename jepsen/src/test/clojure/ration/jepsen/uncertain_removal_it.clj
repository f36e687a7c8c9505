(ns ration.jepsen.uncertain-removal-it
  "Three real nodes on loopback: a remove whose answer is a time-out but which commits once the
  fault heals. The membership nemesis must notice at its next add that the node it still counted
  as a member is out of the configuration, settle it (wipe, add back) and end with every node a
  live voter — what a matrix cell's :members checker demands."
  (:require [clojure.java.io :as io]
            [clojure.test :refer [deftest is]]
            [ration.jepsen.db :as db]
            [ration.jepsen.nemesis :as nemesis]
            [ration.jepsen.net :as net]
            [ration.jepsen.util :as u]))

(deftest a-remove-that-commits-after-its-time-out-is-settled-and-added-back
  (let [dir (io/file (System/getProperty "java.io.tmpdir") "rtn-uncertain-removal"
                     (str (System/currentTimeMillis)))
        d (db/ration-db dir)
        t {:nodes [:n1 :n2 :n3] :net (net/->LoopbackNet) :start-timeout-s 90 :db d}]
    (try
      (db/setup! d t)
      ;; Every node applied the first entries, so all three are up to date in the leader's eyes.
      (is (:recovered? (db/await-recovery! d t 60000)) "the cluster is whole before the fault")
      (let [leader (first (db/primaries d t))
            followers (vec (remove #{leader} (:nodes t)))
            target (first followers)]
        ;; Both followers stopped just after they last answered: the leader still counts them up
        ;; to date, proposes the change and cannot commit it within the 2 s wait.
        (doseq [f followers] (db/pause! d t f))
        (let [r (try (db/remove-node! d t target 2)
                     (finally (doseq [f followers] (db/resume! d t f))))]
          (is (= target (:uncertain r)) (str "the remove's outcome is uncertain: " (pr-str r)))
          (is (= :uncertain (get @(:removed d) target)))
          (when (= target (:uncertain r))
            ;; Once the followers answer the pending change commits: the target is out while
            ;; still running on its old data.
            (is (u/await-fn #(let [s (#'db/status d leader)]
                               (when (and s (not (some #{(name target)} (map :id (:peers s)))))
                                 true))
                            30000 250)
                "the timed-out remove commits after the fault heals")
            (let [op (nemesis/invoke! (nemesis/membership) t
                                      {:type :info :process :nemesis :f :add-node
                                       :value {:nodes :all :timeout-s 60}})
                  v (:value op)]
              (is (= [target :removed] ((juxt :settled :as) (first (:settled v)))) (pr-str v))
              (is (= [target] (mapv :added (:results v))) (pr-str v))
              (let [rec (db/await-recovery! d t 60000)]
                (is (:recovered? rec) (pr-str rec))
                (is (= ["n1" "n2" "n3"] (:voters rec)) (pr-str rec)))))))
      (finally
        (db/teardown! d t)
        ;; -Dration.jepsen.keep=true keeps the nodes' logs and data for a look afterwards.
        (when-not (Boolean/getBoolean "ration.jepsen.keep")
          (u/sh-quiet "rm" "-rf" (str dir)))))))
