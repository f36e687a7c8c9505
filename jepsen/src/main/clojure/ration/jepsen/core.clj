(ns ration.jepsen.core
  "The test map and run!, in Jepsen's order: store dir → net + DB setup → client setup →
  nemesis setup → the generator interpreter writes the history → heal, final generator, quiet
  period, final reads → teardown (logs copied first) → check → save. Cleanup of the suite's
  namespaces, links, iptables rules and pids runs before setup, after the run, and from a JVM
  shutdown hook on interrupt. One run at a time per machine (a lock file guards it).

  Interpreter (Jepsen's model): one worker thread per client thread 0..concurrency−1 and one
  for :nemesis; thread t's client talks first to node t mod n. The main loop drains
  completions before asking the generator for an op, stamps :index and relative-ns :time, and
  after an :info on a client thread gives that thread a new process id (old + concurrency)."
  (:refer-clojure :exclude [run!])
  (:require [clojure.java.io :as io]
            [clojure.tools.logging :refer [info warn error]]
            [ration.jepsen.checker :as checker]
            [ration.jepsen.client :as client]
            [ration.jepsen.db :as db]
            [ration.jepsen.generator :as gen]
            [ration.jepsen.history :as h]
            [ration.jepsen.nemesis :as nemesis]
            [ration.jepsen.net :as net]
            [ration.jepsen.store :as store]
            [ration.jepsen.util :as u])
  (:import (java.util.concurrent LinkedBlockingQueue TimeUnit)))

;; ------------------------------------------------------------------ interpreter

(defn- now [test] (- (System/nanoTime) (:start-nanos test)))

(defn- nemesis-rng
  "The nemesis thread's random source (its targets, bump sizes, membership draws): seeded from
  the test's :seed, apart from the generator's own stream, which it leaves as it was. A new
  Thread sees only the root binding of gen/*rng*, the same for every seed, so without this a
  seed reproduced the schedule but not what the nemesis drew while acting."
  ^java.util.Random [test]
  (java.util.Random. (bit-xor (long (:seed test 0)) 0x6E656D65736973)))

(defn- worker
  "A worker thread: takes ops from in, puts [thread completion] on out. c is an atom holding
  the thread's client (reopened after :info unless Reusable). The nemesis's worker draws from
  nemesis-rng."
  [test thread c in out]
  (let [rng (when (= :nemesis thread) (nemesis-rng test))
        t (Thread.
           (fn []
             (binding [gen/*rng* (or rng gen/*rng*)]
               (loop []
                 (let [op (.take ^LinkedBlockingQueue in)]
                   (when-not (= ::exit op)
                     (let [completion
                           (try
                             (if (integer? thread)
                               (client/invoke! @c test op)
                               (nemesis/invoke! (:nemesis test) test op))
                             (catch Throwable e
                               (warn e "worker" thread "threw on" (:f op))
                               (assoc op :type :info :error [:exception (str e)] :exception (str e))))
                           completion (assoc completion :time (now test))
                           completion (if (= :nemesis thread) (assoc completion :type :info) completion)]
                       (when (and (integer? thread) (= :info (:type completion))
                                  (not (and (satisfies? client/Reusable @c) (client/reusable? @c test))))
                         (try (client/close! @c test) (catch Throwable _))
                         (reset! c (client/open! (assoc (:client test) :thread thread) test (:node (meta c)))))
                       (.put ^LinkedBlockingQueue out [thread completion]))
                     (recur))))))
           (str "jepsen-worker-" (if (keyword? thread) (name thread) thread)))]
    (.setDaemon t true)
    (.start t)
    t))

(defn run-generator!
  "Runs gen against the test's client and nemesis; returns the history."
  [test gen]
  (let [conc (:concurrency test)
        threads (vec (concat (range conc) [:nemesis]))
        out (LinkedBlockingQueue.)
        side-processes (java.util.concurrent.atomic.AtomicLong. 1000000)
        ;; Background calls (client/record!) reach the history through the same queue, stamped
        ;; when they happen; they never occupy a thread or count as outstanding.
        test (assoc test
                    :record! (fn [op] (.put out [::side (assoc op :time (now test))]))
                    :next-side-process! #(.getAndIncrement side-processes))
        ins (into {} (for [t threads] [t (LinkedBlockingQueue.)]))
        nodes (:nodes test)
        clients (into {} (for [t (range conc)
                               :let [node (nth nodes (mod t (count nodes)))]]
                           [t (atom (client/open! (assoc (:client test) :thread t) test node) :meta {:node node})]))
        workers (mapv #(worker test % (clients %) (ins %) out) threads)
        history (transient [])
        hard-deadline (+ (System/nanoTime) (* 1000000000 (long (:hard-limit-s test 900))))
        complete! (fn [ctx [thread c]]
                    (conj! history (assoc c :index (count history)))
                    (if (= ::side thread)
                      ctx
                      (-> ctx
                          (update :free-threads conj thread)
                          (cond-> (and (integer? thread) (= :info (:type c)))
                            (update-in [:workers thread] + conc)))))
        ;; How much a queue entry lowers the count of outstanding ops.
        counted (fn [[thread _]] (if (= ::side thread) 0 1))]
    (try
      (loop [gen gen
             ctx {:time 0 :free-threads (set threads) :threads threads
                  :workers (into {} (for [t threads] [t t]))}
             outstanding 0]
        (if-let [done (.poll out)]
          (recur gen (complete! ctx done) (- outstanding (counted done)))
          (let [ctx (assoc ctx :time (now test))
                over? (> (System/nanoTime) hard-deadline)
                r (when-not over? (gen/op gen test ctx))]
            (cond
              (nil? r)
              (if (zero? outstanding)
                (persistent! history)
                (if-let [done (.poll out 60 TimeUnit/SECONDS)]
                  (recur nil (complete! ctx done) (- outstanding (counted done)))
                  (do (warn outstanding "ops still outstanding after 60 s; ending the run") (persistent! history))))

              (= :pending (first r))
              (if-let [done (.poll out 5 TimeUnit/MILLISECONDS)]
                (recur (second r) (complete! ctx done) (- outstanding (counted done)))
                (recur (second r) ctx outstanding))

              :else
              (let [[op gen'] r
                    wait-ns (- (:time op) (now test))]
                (if-let [done (when (pos? wait-ns) (.poll out wait-ns TimeUnit/NANOSECONDS))]
                  ;; A completion arrived first: handle it (in queue order, so a background
                  ;; call's invocation stays before its completion) and ask the generator again.
                  (recur gen (complete! ctx done) (- outstanding (counted done)))
                  (let [thread (some (fn [[t p]] (when (= p (:process op)) t)) (:workers ctx))
                        op (assoc op :time (now test))
                        op (if (and (integer? thread) (satisfies? client/Prepare @(clients thread)))
                             (client/prepare @(clients thread) test op)
                             op)
                        op (if (= :nemesis thread) (assoc op :type :info) op)
                        op (assoc op :index (count history))]
                    (conj! history op)
                    (.put ^LinkedBlockingQueue (ins thread) op)
                    (recur gen' (update ctx :free-threads disj thread) (inc outstanding)))))))))
      (finally
        (doseq [t threads] (.put ^LinkedBlockingQueue (ins t) ::exit))
        (doseq [^Thread w workers] (.join w 5000))
        (doseq [c (vals clients)] (try (client/close! @c test) (catch Throwable _)))))))

;; ------------------------------------------------------------------ run!

(defn- lock! []
  (let [f (io/file (System/getProperty "java.io.tmpdir") "rtn-jepsen.lock")
        ch (java.nio.channels.FileChannel/open (.toPath f)
                                               (into-array java.nio.file.OpenOption
                                                           [java.nio.file.StandardOpenOption/CREATE
                                                            java.nio.file.StandardOpenOption/WRITE]))
        l (.tryLock ch)]
    (when-not l
      (.close ch)
      (throw (ex-info (str "another Ration Jepsen run holds " f) {})))
    [ch l]))

(defn- cleanup! [test]
  (try (nemesis/teardown! (:nemesis test) test) (catch Throwable t (warn t "nemesis teardown")))
  (try (db/teardown! (:db test) test) (catch Throwable t (warn t "db teardown")))
  (try (net/cleanup! (:net test) test) (catch Throwable t (warn t "net cleanup"))))

(defn full-generator
  "Jepsen's canonical shape: workload + nemesis under a time limit; heal, then a bounded wait for
  recovery (every node /ready + a leader, recorded as :await-recovery); quiet; final reads."
  [test]
  (let [{:keys [workload nemesis-package]} test]
    (gen/phases
     (gen/time-limit (:time-limit test)
                     (gen/clients+nemesis (gen/stagger (/ 1.0 (:rate test)) (:generator workload))
                                          (:generator nemesis-package)))
     (gen/nemesis (:final-generator nemesis-package))
     (gen/sleep (:quiet-s test 10))
     (gen/clients (:final-generator workload)))))

(defn run!
  "Runs a test map; returns it with :history and :results. Keys: :name :nodes :concurrency
  :time-limit :rate :seed :workload {:client :generator :final-generator :opts} :checker
  :nemesis-package {:nemesis :generator :final-generator} :netns? :store-root."
  [test]
  (let [[ch lock] (lock!)
        dir (store/run-dir (:store-root test "store") (:name test))
        data-dir (io/file (System/getProperty "java.io.tmpdir") "rtn-jepsen" (.getName dir))
        test (merge {:concurrency (* 2 (count (:nodes test)))} test)
        test (assoc test
                    :data-dir (str data-dir)
                    :start-time (str (java.time.Instant/now))
                    :store-dir (str dir)
                    :net (if (:netns? test) (net/->NetnsNet) (net/->LoopbackNet))
                    :db (db/ration-db data-dir)
                    :nemesis (:nemesis (:nemesis-package test))
                    :client (:client (:workload test))
                    :workload-opts (:opts (:workload test)))
        hook (Thread. #(do (warn "interrupted: cleaning up") (cleanup! test)))]
    (.addShutdownHook (Runtime/getRuntime) hook)
    (store/write-pprint! (io/file dir "test.edn")
                         (select-keys test [:name :nodes :concurrency :time-limit :rate :seed :netns?
                                            :nemesis-name :workload-name :workload-opts :start-time]))
    (info "run" (:name test) "store" (str dir))
    (try
      (binding [gen/*rng* (java.util.Random. (long (:seed test 0)))]
        (let [history
              (try
                (net/setup! (:net test) test)
                (db/setup! (:db test) test)
                (let [setup-client (client/open! (assoc (:client test) :thread 0) test (first (:nodes test)))]
                  (try (client/setup! setup-client test) (finally (client/close! setup-client test))))
                (let [test (assoc test :nemesis (nemesis/setup! (:nemesis test) test)
                                  :start-nanos (System/nanoTime))]
                  (run-generator! test (full-generator test)))
                (finally
                  (try (store/copy-logs! dir (db/log-files (:db test) test)) (catch Throwable t (warn t "copying logs")))
                  (cleanup! test)))
              results (checker/check (:checker test) test history (:workload-opts test))
              results (store/save! dir test history results)]
          (store/link-latest! (:store-root test "store") dir)
          (info "valid?" (:valid? results) "->" (str dir))
          (assoc test :history history :results results)))
      (finally
        (try (.removeShutdownHook (Runtime/getRuntime) hook) (catch IllegalStateException _))
        (u/sh-quiet "rm" "-rf" (str data-dir))
        (.release lock)
        (.close ch)))))
