(ns ration.jepsen.db
  "Jepsen's DB protocols and Ration's implementation: each node a `ration server` JVM
  (-Xmx256m, SerialGC, C1 only) in its network namespace (or on loopback), with a per-run data
  dir, a generated YAML config, a pid file and a log file, started under libfaketime
  (FAKETIME_TIMESTAMP_FILE per node, no caching, monotonic clock NOT faked) when available.
  The CLI's and the server's jars are copied into the run dir so a concurrent rebuild cannot swap
  them mid-run.
  Kill = kill -9 of the recorded pid; pause = SIGSTOP/SIGCONT; primaries from admin /status.

  Membership (remove-node!, add-node!): the DB tracks each node taken out of the replicated
  configuration in :removed, node -> :removed (stopped, data directory wiped: not expected to
  answer, never restarted by a kill's heal) or :joining (restarted empty with --join, its
  `cluster add` not finished: running, restarted by a kill's heal, not yet expected /ready)
  or :uncertain (a remove that timed out or went unanswered: Ratis may still commit it, so the
  node may be out of the configuration while still running on its old data; settle-removal!
  finds out before the next add).
  A node once wiped is started with --join for the rest of the run; add-node! may kill and
  restart a newcomer before its add (restart-newcomer!)."
  (:require [clojure.data.json :as json]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.net :as net]
            [ration.jepsen.util :as u]))

(defprotocol DB
  (setup! [db test] "Installs and starts every node; waits for a leader.")
  (teardown! [db test] "Stops every node and removes run state (idempotent)."))

(defprotocol Kill
  (kill! [db test node] "kill -9.")
  (start! [db test node] "Starts the node if it is not running.")
  (start-all! [db test] "Starts every node that is not running; returns those started."))

(defprotocol Pause
  (pause! [db test node] "SIGSTOP.")
  (resume! [db test node] "SIGCONT (no-op unless paused)."))

(defprotocol Primary
  (primaries [db test] "Nodes whose own /status says LEADER."))

(defprotocol LogFiles
  (log-files [db test] "node -> [files] to copy into the store."))

(defprotocol Clock
  (set-clock-offset! [db test node offset-ms] "Moves the node's wall clock (libfaketime)."))

(def ports {:client 17101 :raft 17201 :admin 17301})

(defn find-root
  "The repository root: -Dration.root, else the nearest parent of the working directory that
  has cli/target/ration-cli.jar."
  []
  (let [candidates (cons (System/getProperty "ration.root")
                         (take-while some? (iterate #(.getParent (io/file %)) (System/getProperty "user.dir"))))]
    (or (some #(when (and % (.exists (io/file % "cli/target/ration-cli.jar")))
                 (.getCanonicalPath (io/file %)))
              candidates)
        (throw (ex-info "cli/target/ration-cli.jar not found: build it (mvn -B -q package -DskipTests -Djavadoc.skip=true -pl cli -am) or set -Dration.root"
                        {:user.dir (System/getProperty "user.dir")})))))

(def libfaketime "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
(defn faketime-available?
  "libfaketime is installed and not disabled with RTN_FAKETIME=0."
  []
  (and (.exists (io/file libfaketime)) (not= "0" (System/getenv "RTN_FAKETIME"))))

(defn- address [db node role]
  (str (get-in @(:addrs db) [node :ip]) ":" (get-in @(:addrs db) [node role])))

(defn client-addresses
  "host:port of every node's client endpoint, in node order."
  [db test]
  (mapv #(address db % :client) (:nodes test)))

(defn- certs-dir ^java.io.File [db] (io/file (:run-dir db) "certs"))

(defn- ration-cli!
  "Runs `ration ARGS` from the run's copies of the CLI's and the server's jars (the harness has
  no server classes)."
  [db & args]
  (apply u/sh! (str (System/getProperty "java.home") "/bin/java") "-XX:TieredStopAtLevel=1"
         "-cp" (str (:jar db) ":" (:lib db) "/*") "dev.ration.cli.RationCli" args))

(defn- certs!
  "A CA, node certificates (for each node's address, 127.0.0.1 and localhost) and the client
  certificate `jepsen` for this run, made with `ration cert` in the run's certificates
  directory; then the harness's TLS settings over them (util/tls)."
  [db test]
  (let [dir (str (certs-dir db))]
    ;; Once per run: a setup again in the same run keeps the run's CA.
    (when-not (.exists (io/file dir "ca.crt"))
      (ration-cli! db "cert" "create-ca" "--certs-dir" dir)
      (doseq [n (:nodes test)]
        (ration-cli! db "cert" "create-node" (name n) "--certs-dir" dir
                     "--host" (str/join "," (distinct [(get-in @(:addrs db) [n :ip]) "127.0.0.1" "localhost"]))))
      (ration-cli! db "cert" "create-client" "jepsen" "--certs-dir" dir))
    (let [ca (io/file dir "ca.crt")
          crt (io/file dir "client.jepsen.crt")
          key (io/file dir "client.jepsen.key")
          cas (dev.ration.protocol.tls.PemFiles/certificates (.toPath ca))
          chain (dev.ration.protocol.tls.PemFiles/certificates (.toPath crt))
          pk (dev.ration.protocol.tls.PemFiles/privateKey (.toPath key))
          ctx (doto (javax.net.ssl.SSLContext/getInstance "TLSv1.3")
                (.init (into-array javax.net.ssl.KeyManager
                                   [(dev.ration.protocol.tls.ReloadingKeyManager. pk chain)])
                       (into-array javax.net.ssl.TrustManager
                                   [(dev.ration.protocol.tls.ReloadingTrustManager. cas)])
                       nil))]
      (reset! u/tls {:client-tls (.withKeyPair (dev.ration.client.tls.ClientTls/trusting (.toPath ca))
                                               (.toPath crt) (.toPath key))
                     :ssl-context ctx})
      (info "TLS on every port; certificates in" dir))))

(defn- node-yaml [db test node]
  (str "node:\n  id: " (name node) "\n  data-dir: " (io/file (:run-dir db) (name node) "data") "\n"
       "cluster:\n  group-id: " (:group-id db) "\n  peers:\n"
       (str/join (for [n (:nodes test)]
                   (str "    - { id: " (name n) ", raft: " (address db n :raft) ", client: " (address db n :client)
                        ", admin: " (address db n :admin) " }\n")))
       "raft:\n  election-timeout-min: 1s\n  election-timeout-max: 2s\n  request-timeout: 2s\n"
       "ledger:\n  tick-interval: 250ms\n  idempotency-retention: 120s\n"
       "endpoint:\n  default-deadline: 5s\n  max-deadline: 60s\n"
       "shutdown:\n  grace: 1s\n"
       ;; Secure, as an operator would run it: the run's administrator token is named by its
       ;; salted hash only; the workloads and the nemeses present the token.
       "security:\n  mode: secure\n  bootstrap-tokens: [\"" (:bootstrap-token db) "\"]\n"
       ;; TLS on the client, Raft and admin ports, client certificates required, with the run's
       ;; own CA (certs!); the clients and the admin calls present the run's client certificate.
       (let [certs (certs-dir db)]
         (str "tls:\n  mode: secure\n"
              "  ca: " (io/file certs "ca.crt") "\n"
              "  cert: " (io/file certs (str "node." (name node) ".crt")) "\n"
              "  key: " (io/file certs (str "node." (name node) ".key")) "\n"
              "  client-auth: required\n"))))

(defn- clock-file ^java.io.File [db node] (io/file (:run-dir db) (name node) "faketime"))
(defn- log-file ^java.io.File [db node] (io/file (:run-dir db) (name node) "node.log"))
(defn- pid-file ^java.io.File [db node] (io/file (:run-dir db) (name node) "node.pid"))

(defn- alive? [^Process p] (and p (.isAlive p)))

(defn- launch! [db test node]
  (let [dir (io/file (:run-dir db) (name node))
        cfg (io/file dir "node.yaml")
        java (str (System/getProperty "java.home") "/bin/java")
        faketime? (:faketime? db)
        rate (get @(:rates db) node)
        cmd (concat (net/exec-prefix (:net test) node)
                    ["env"]
                    (cond
                      ;; Rate skew: every clock of the JVM (wall, nanoTime, timed waits) runs at
                      ;; rate × real time, from this start on; no live offset file. Here the
                      ;; monotonic fix must be ON: with a faked monotonic clock and the fix off,
                      ;; JDK 17's timed waits (Object.wait, parkNanos, sleep) wait on the real
                      ;; clock for a faked deadline and hang (a probe JVM at x2.0 or x0.9 never
                      ;; finished 12 × 200 ms waits in 60 s; with the fix they take 200 ms of
                      ;; fake time: 4.1 s real at x2.0, 8.2 s at x0.9 for the whole probe).
                      (and faketime? rate)
                      [(str "LD_PRELOAD=" libfaketime)
                       (str "FAKETIME=+0 x" rate)
                       "FAKETIME_NO_CACHE=1" "FAKETIME_FORCE_MONOTONIC_FIX=1"]
                      faketime?
                      [(str "LD_PRELOAD=" libfaketime)
                       (str "FAKETIME_TIMESTAMP_FILE=" (clock-file db node))
                       "FAKETIME_NO_CACHE=1" "FAKETIME_DONT_FAKE_MONOTONIC=1"
                       ;; With the "monotonic fix" on, JDK 17's timed waits return early and a
                       ;; node hangs at start-up; off, waits are exact (checked with a probe).
                       "FAKETIME_FORCE_MONOTONIC_FIX=0"])
                    [java "-Xmx256m" "-XX:+UseSerialGC" "-XX:TieredStopAtLevel=1"
                     "-cp" (str (:jar db) ":" (:lib db) "/*")
                     "dev.ration.cli.RationCli" "server" "--config" (str cfg)]
                    (when (contains? @(:joiners db) node) ["--join"]))
        pb (doto (ProcessBuilder. ^java.util.List (vec cmd))
             (.redirectErrorStream true)
             (.redirectOutput (java.lang.ProcessBuilder$Redirect/appendTo (log-file db node))))
        p (.start pb)]
    (spit (pid-file db node) (str (.pid p)))
    (swap! (:procs db) assoc node {:proc p :paused? false})
    (info "started" node "pid" (.pid p) (if (contains? @(:joiners db) node) "with --join" ""))
    p))

(defn- status [db node]
  (when-let [{:keys [status body]} (u/http-get (str "http://" (address db node :admin) "/status") 1000)]
    (when (= 200 status) (json/read-str body :key-fn keyword))))

(defn- kill-proc! [db node]
  (when-let [{:keys [^Process proc]} (get @(:procs db) node)]
    (when (alive? proc)
      (u/sh-quiet "kill" "-CONT" (str (.pid proc)))
      (u/sh-quiet "kill" "-9" (str (.pid proc)))
      (.waitFor proc 10 java.util.concurrent.TimeUnit/SECONDS))
    (swap! (:procs db) assoc-in [node :paused?] false)))

(defn members
  "The nodes expected to be voters: every node not taken out by the membership nemesis (a node
  being added back counts only once its `cluster add` finished)."
  [db test]
  (vec (remove (set (keys @(:removed db))) (:nodes test))))

(defn startable
  "The nodes that should run, which a heal may (re)start: all but those removed and wiped (a
  :joining node runs)."
  [db test]
  (vec (remove #(= :removed (get @(:removed db) %)) (:nodes test))))

(defrecord RationDB [root run-dir jar lib group-id faketime? addrs procs rates removed joiners]
  DB
  (setup! [db test]
    (teardown! db test)
    (reset! removed {})
    (reset! joiners #{})
    (.mkdirs (io/file run-dir))
    ;; The run's own copies of the CLI's jar and the daemon's: a rebuild during the run must not
    ;; change the nodes' code. They come first on the class path, before lib/.
    (io/copy (io/file root "cli/target/ration-cli.jar") (io/file run-dir "ration-cli.jar"))
    (io/copy (io/file root "cli/target/lib/ration-server.jar") (io/file run-dir "ration-server.jar"))
    (reset! addrs (into {} (for [n (:nodes test)]
                             [n (if (instance? ration.jepsen.net.LoopbackNet (:net test))
                                  {:ip "127.0.0.1" :client (u/free-port) :raft (u/free-port) :admin (u/free-port)}
                                  (assoc ports :ip (net/ip-of (:net test) n)))])))
    (certs! db test)
    (doseq [n (:nodes test)]
      (let [dir (io/file run-dir (name n))]
        (.mkdirs (io/file dir "data"))
        (spit (clock-file db n) "+0")
        (spit (io/file dir "node.yaml") (node-yaml db test n))))
    (doseq [n (:nodes test)] (launch! db test n))
    (let [start-s (:start-timeout-s test 90)]
      (when-not (u/await-fn #(seq (primaries db test)) (* 1000 start-s) 250)
        (throw (ex-info (str "no leader within " start-s " s of starting the nodes") {:run-dir run-dir}))))
    (info "cluster up; leader" (primaries db test)))

  (teardown! [db test]
    (doseq [n (keys @procs)] (kill-proc! db n))
    (reset! procs {}))

  Kill
  (kill! [db _ node] (kill-proc! db node))
  (start! [db test node]
    (when-not (alive? (get-in @procs [node :proc]))
      (launch! db test node)
      node))
  (start-all! [db test] (vec (keep #(start! db test %) (startable db test))))

  Pause
  (pause! [_ _ node]
    (when-let [^Process p (get-in @procs [node :proc])]
      (when (alive? p)
        (u/sh-quiet "kill" "-STOP" (str (.pid p)))
        (swap! procs assoc-in [node :paused?] true))))
  (resume! [_ _ node]
    (when (get-in @procs [node :paused?])
      (when-let [^Process p (get-in @procs [node :proc])]
        (u/sh-quiet "kill" "-CONT" (str (.pid p))))
      (swap! procs assoc-in [node :paused?] false)))

  Primary
  (primaries [db test]
    (vec (filter #(and (not (get-in @procs [% :paused?]))
                       (= "LEADER" (:role (status db %))))
                 (startable db test))))

  LogFiles
  (log-files [db test]
    (into {} (for [n (:nodes test)] [n [(log-file db n) (io/file run-dir (name n) "node.yaml")]])))

  Clock
  (set-clock-offset! [db _ node offset-ms]
    ;; libfaketime reads "+N"/"-N" seconds (fractions allowed) on every call (no cache).
    (let [f (clock-file db node)
          tmp (io/file (str f ".tmp"))]
      (spit tmp (format "%+.3f" (/ (double offset-ms) 1000.0)))
      (.renameTo tmp f))))

(defn restart-with-rate!
  "kill -9 node and start it again with its clocks at rate × real time (nil: real rate).
  libfaketime can only change a rate at process start."
  [db test node rate]
  (if rate (swap! (:rates db) assoc node rate) (swap! (:rates db) dissoc node))
  (kill! db test node)
  (start! db test node))

(defn node-status
  "The node's admin /status as a map (:role :leaderId :ledgerNowMillis ...), or nil."
  [db node]
  (status db node))

(defn transfer-leadership!
  "Makes target the leader: waits (≤ 20 s) until it is /ready (a freshly restarted node must
  catch up first), then asks the current leader (admin POST /transfer-leadership?to=target),
  up to 3 attempts, until target's own /status says LEADER. Returns {:transferred? :from
  :leader :attempts [answers]}."
  [db test target]
  (let [ready? #(= 200 (:status (u/http-get (str "http://" (address db target :admin) "/ready") 1000)))
        _ (u/await-fn ready? 20000 250)
        from (primaries db test)]
    (loop [i 0, answers []]
      (let [leaders (primaries db test)]
        (cond
          (= [target] leaders) {:transferred? true :from from :leader leaders :attempts answers}
          (>= i 3) {:transferred? false :from from :leader leaders :attempts answers}
          :else
          (let [l (first leaders)
                r (when l (u/http-post (str "http://" (address db l :admin) "/transfer-leadership?to=" (name target)) 8000))
                answers (conj answers [l (:status r) (some-> (:body r) str/trim)])]
            (u/await-fn #(= [target] (primaries db test)) 3000 200)
            (recur (inc i) answers)))))))

(defn ledger-rate
  "Samples node's ledger clock (admin /status ledgerNowMillis) twice, dt-ms apart on the
  harness's clock; returns ledger ms per real ms (nil when unreadable)."
  [db node dt-ms]
  (let [sample #(when-let [s (status db node)] [(System/nanoTime) (:ledgerNowMillis s)])
        a (sample)
        _ (Thread/sleep (long dt-ms))
        b (sample)]
    (when (and a b (> (first b) (first a)))
      (/ (double (- (second b) (second a))) (/ (- (first b) (first a)) 1e6)))))

(defn ready-nodes
  "Nodes whose admin /ready answers 200 (not draining, a leader known, applied near commit)."
  [db test]
  (vec (filter #(= 200 (:status (u/http-get (str "http://" (address db % :admin) "/ready") 1000)))
               (:nodes test))))

(defn await-recovery!
  "Polls until every node is /ready, one says LEADER and its configuration has every node as a
  voter, or timeout-ms passes. Returns {:recovered? :seconds :ready [...] :leader [...] :voters
  [...] :listeners [...]}: the time-to-recovery after the final heal."
  [db test timeout-ms]
  (let [t0 (System/nanoTime)
        all (set (map name (:nodes test)))
        probe (fn [] (let [r (ready-nodes db test)
                           leader (if (= (count r) (count (:nodes test))) (primaries db test) [])
                           ;; The whole cluster: every node a voter in the leader's configuration
                           ;; (a node added back may still be a listener catching up).
                           s (when (seq leader) (status db (first leader)))
                           listeners (set (:listeners s))]
                       {:ready r :leader leader
                        :voters (vec (sort (remove listeners (map :id (:peers s)))))
                        :listeners (vec (sort listeners))}))
        ok? (fn [{:keys [ready leader voters]}]
              (and (= (count ready) (count (:nodes test))) (seq leader) (= all (set voters))))
        done (u/await-fn #(let [p (probe)] (when (ok? p) p)) timeout-ms 250)
        final (or done (probe))]
    (assoc final :recovered? (boolean done) :seconds (u/ns->s (- (System/nanoTime) t0))
           :timeout-s (/ timeout-ms 1000.0))))

(defn- admin-post
  "POST path (with query) to node's admin port; {:status :body} (body trimmed) or nil."
  [db node path timeout-ms]
  (some-> (u/http-post (str "http://" (address db node :admin) path) timeout-ms)
          (update :body #(some-> % str/trim))))

(defn- voters-seen
  "The replicated configuration as the first answering leader (else any member) reports it:
  {:from node :voters [ids] :listeners [ids]}, or nil."
  [db test]
  (some (fn [n]
          (when-let [s (status db n)]
            (when (seq (:peers s))
              (let [listeners (set (:listeners s))]
                {:from n
                 :voters (vec (sort (remove listeners (map :id (:peers s)))))
                 :listeners (vec (sort listeners))}))))
        (distinct (concat (primaries db test) (members db test)))))

(defn wipe-data!
  "Stops node (kill -9) and deletes its data directory."
  [db node]
  (kill-proc! db node)
  (let [data (io/file (:run-dir db) (name node) "data")]
    (u/sh! "rm" "-rf" (str data))
    (.mkdirs data)))

(defn- wipe!
  "What an operator does with a node once `cluster remove` took it out: stop it, delete its
  data directory. From now on it starts with --join."
  [db node]
  (wipe-data! db node)
  (swap! (:joiners db) conj node))

(defn removal-outcome
  "What the answer to a remove says happened: :removed (200), :not-removed (rejected before
  anything was proposed: 400 unknown or bad request, 409 another change in progress, 412 it
  would lose the majority), or :uncertain (504 timed out, 503 failed inside Ratis, 421 not the
  leader — Ratis also answers so when its leader steps down with the change pending — or no
  answer at all: the new configuration may be in the leader's log and still commit later)."
  [status]
  (cond (= 200 status) :removed
        (#{400 409 412} status) :not-removed
        :else :uncertain))

(defn remove-node!
  "Takes node out of the replicated configuration through the leader's admin endpoint (POST
  /membership/remove?id=node; Ratis setConfiguration), then stops it and wipes its data
  directory. Returns what happened: {:removed node} on success; {:refused ...} when the server
  refused (HTTP 412: it would lose the majority or the current voters are not up to date —
  expected under partitions and kills, not an error of the harness); {:uncertain ...} when the
  outcome is unknown (removal-outcome): the node keeps running, is marked :uncertain, and the
  next add settles it (settle-removal!); {:failed ...} otherwise (nothing was changed)."
  [db test node wait-s]
  (let [leader (first (u/await-fn #(seq (primaries db test)) 5000 250))
        r (when leader (admin-post db leader (str "/membership/remove?id=" (name node) "&wait=" wait-s "s")
                                   (* 1000 (+ wait-s 5))))
        answer (when leader [leader (:status r) (:body r)])
        outcome (when leader (removal-outcome (:status r)))]
    (cond
      (nil? leader) {:failed node :why :no-leader-within-5s}
      (= :removed outcome) (do (wipe! db node)
                               (swap! (:removed db) assoc node :removed)
                               {:removed node :answer answer :configuration (voters-seen db test)})
      (= 412 (:status r)) {:refused node :answer answer}
      (= :uncertain outcome) (do (swap! (:removed db) assoc node :uncertain)
                                 {:uncertain node :answer answer :configuration (voters-seen db test)})
      :else {:failed node :answer answer :configuration (voters-seen db test)})))

(defn settle-removal!
  "Settles a remove whose outcome was :uncertain by asking the leader to remove node again, until
  timeout-s has passed: the leader answers from its committed configuration (it waits for its
  configuration to commit before answering about members), so 200 (removed
  now) or 400 \"unknown member\" (the first remove did commit) mean the node is out: it is
  stopped, wiped and marked :removed, for the add that follows to bring it back as an operator
  would. A refusal (412) means it is still a voter that cannot be taken out now: it counts as a
  member again. Other answers (no leader, not the leader, in progress, time-outs) are retried.
  Returns {:settled node :as :removed|:member :attempts [...]} or {:unsettled node :attempts
  [...]} (still :uncertain; a later add tries again)."
  [db test node timeout-s]
  (let [deadline (+ (System/nanoTime) (* 1000000000 (long timeout-s)))]
    (loop [attempts []]
      (let [leader (first (primaries db test))
            wait-s (max 1 (min 10 (long (/ (- deadline (System/nanoTime)) 1e9))))
            r (when leader (admin-post db leader (str "/membership/remove?id=" (name node) "&wait=" wait-s "s")
                                       (* 1000 (+ wait-s 5))))
            attempts (conj attempts [leader (:status r) (:body r)])]
        (cond
          (or (= 200 (:status r))
              (and (= 400 (:status r)) (str/includes? (str (:body r)) "unknown member")))
          (do (wipe! db node)
              (swap! (:removed db) assoc node :removed)
              {:settled node :as :removed :attempts attempts})
          (= 412 (:status r))
          (do (swap! (:removed db) dissoc node)
              {:settled node :as :member :attempts attempts})
          (or (neg? (- deadline (System/nanoTime))) (>= (count attempts) 1000))
          {:unsettled node :attempts attempts}
          :else (do (Thread/sleep 500) (recur attempts)))))))

(defn- admin-up? [db node]
  (some? (u/http-get (str "http://" (address db node :admin) "/health") 1000)))

(defn- await-admin!
  "Waits (at most timeout-s) until node's admin port answers; returns whether it did. A JVM's
  start does not count against an add: on a loaded machine it can take a minute."
  [db node timeout-s]
  (boolean (u/await-fn #(admin-up? db node) (* 1000 (long timeout-s)) 250)))

(defn- restart-newcomer!
  "kill -9 of a newcomer started with --join whose admin port answers (the node opens it after
  its Raft storage, so that storage exists, with no configuration in it) before anyone asked to
  add it, then a start again with --join on that storage: a node that crashed before `cluster
  add` reached it. It must come back a newcomer waiting for its add, not a voter of the peers
  in its file that campaigns. Returns whether its admin port answered again."
  [db test node timeout-s]
  (kill-proc! db node)
  (launch! db test node)
  (await-admin! db node timeout-s))

(defn add-node!
  "Brings node back: when it is not running, starts it (its data directory was wiped) with
  --join and waits for its admin port; then asks the leader to add it (POST /membership/add
  ...: a listener first, caught up, then promoted to voter), retrying refusals, changes in
  progress, leader changes and time-outs until timeout-s has passed. Returns {:added node
  :attempts [...]} or {:not-added node :attempts [...]}; a node not added stays :joining
  (running; a later add-node resumes it).

  With :restart-before-add? in opts, a node this call started is killed and started again with
  --join (restart-newcomer!) once its admin port answers and before the add is asked for; the
  result then says :restarted-before-add true. A node resumed running is not restarted: an
  earlier add may already have made it a listener."
  ([db test node timeout-s] (add-node! db test node timeout-s {}))
  ([db test node timeout-s {:keys [restart-before-add?]}]
   (swap! (:removed db) assoc node :joining)
   (let [launched? (when-not (alive? (get-in @(:procs db) [node :proc]))
                     (swap! (:joiners db) conj node)
                     (launch! db test node)
                     true)
         up? (await-admin! db node timeout-s)
         restarted? (when (and launched? up? restart-before-add?)
                      (info "restarting" node "with --join before its add")
                      (restart-newcomer! db test node timeout-s)
                      true)
         deadline (+ (System/nanoTime) (* 1000000000 (long timeout-s)))
         left-s #(max 1 (long (/ (- deadline (System/nanoTime)) 1e9)))
         result (loop [attempts []]
                  (let [leader (first (primaries db test))
                        wait-s (min 30 (left-s))
                        r (when leader
                            (admin-post db leader (str "/membership/add?id=" (name node)
                                                       "&raft=" (address db node :raft)
                                                       "&client=" (address db node :client)
                                                       "&admin=" (address db node :admin)
                                                       "&wait=" wait-s "s")
                                        (* 1000 (+ wait-s 5))))
                        attempts (conj attempts [leader (:status r) (:body r)])]
                    (cond
                      (= 200 (:status r)) (do (swap! (:removed db) dissoc node)
                                              {:added node :attempts attempts :configuration (voters-seen db test)})
                      (or (neg? (- deadline (System/nanoTime))) (>= (count attempts) 200))
                      {:not-added node :attempts attempts :configuration (voters-seen db test)}
                      :else (do (Thread/sleep 500) (recur attempts)))))]
     (cond-> result restarted? (assoc :restarted-before-add true)))))

(defn bootstrap-token
  "A token for identity, as `ration token bootstrap` makes one (the harness runs without the
  server's classes): {:token rtn_<id>_<secret> :entry identity@rtnh.<id>.<salt>.<hash>}, the
  hash being SHA-256(salt || secret); only the entry goes into the nodes' files."
  [identity]
  (let [rnd (java.security.SecureRandom.)
        id (loop [] (let [v (.nextLong rnd)] (if (zero? v) (recur) v)))
        secret (byte-array 32)
        salt (byte-array 16)
        _ (.nextBytes rnd secret)
        _ (.nextBytes rnd salt)
        d (java.security.MessageDigest/getInstance "SHA-256")
        _ (.update d salt)
        _ (.update d secret)
        hash (.digest d)
        b64 #(.encodeToString (.withoutPadding (java.util.Base64/getUrlEncoder)) ^bytes %)
        hex (format "%016x" id)]
    {:token (str "rtn_" hex "_" (b64 secret))
     :entry (str identity "@rtnh." hex "." (b64 salt) "." (b64 hash))}))

(defn ration-db
  "A DB for a run under run-dir (data, configs, logs, pids, clock files)."
  [run-dir]
  (let [root (find-root)
        {:keys [token entry]} (bootstrap-token "jepsen")]
    (reset! u/auth-token token)
    (map->RationDB {:root root
                    :bootstrap-token entry
                    :run-dir (str run-dir)
                    :jar (str (io/file run-dir "ration-cli.jar") ":" (io/file run-dir "ration-server.jar"))
                    :lib (str (io/file root "cli/target/lib"))
                    :group-id (str (java.util.UUID/randomUUID))
                    :faketime? (faketime-available?)
                    :addrs (atom {})
                    :procs (atom {})
                    :rates (atom {})
                    :removed (atom {})
                    :joiners (atom #{})})))
