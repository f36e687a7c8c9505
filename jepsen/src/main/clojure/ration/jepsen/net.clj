(ns ration.jepsen.net
  "The suite's private network: a bridge rtn-br0 on 10.77.0.0/24 with the harness at .254 in
  the root namespace and node i at 10.77.0.i in network namespace rtn-n<i> (veth rtn-v<i> ->
  eth0). No routes out, no NAT, no forwarding: these addresses exist only on this machine.
  Faults are iptables rules inside the nodes' namespaces (one-way: a node drops what it
  receives from the nodes it has a grudge against); the harness is never dropped except by
  packet loss. Everything here is named rtn-*, and cleanup! removes only that, idempotently.

  Loopback mode (no root / no netns): nodes on 127.0.0.1, network faults unsupported."
  (:require [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [ration.jepsen.util :as u]))

(def prefix "rtn-")
(def bridge (str prefix "br0"))
(def subnet "10.77.0")
(def harness-ip (str subnet ".254"))

(defn node-index [node] (Long/parseLong (subs (name node) 1)))
(defn netns-name [node] (str prefix (name node)))
(defn veth-name [node] (str prefix "v" (node-index node)))
(defn node-ip [node] (str subnet "." (node-index node)))

(defprotocol Net
  (setup! [net test] "Creates the topology.")
  (cleanup! [net test] "Removes everything the suite may have created (idempotent).")
  (ip-of [net node] "The node's address.")
  (exec-prefix [net node] "Command prefix that runs a program in the node's namespace.")
  (drop-grudge! [net test grudge] "For each node -> nodes, the node drops packets from them.")
  (lossy! [net test nodes probability] "Random input loss on nodes.")
  (heal! [net test] "Removes every fault rule."))

(defn- in-ns! [node & args] (apply u/sh! "ip" "netns" "exec" (netns-name node) args))

(defn- our-namespaces []
  (->> (str/split-lines (:out (u/sh-quiet "ip" "netns" "list")))
       (map #(first (str/split (str/trim %) #"\s+")))
       (filter #(and % (str/starts-with? % prefix)))))

(defrecord NetnsNet []
  Net
  (cleanup! [_ _]
    (doseq [ns (our-namespaces)]
      ;; Processes in our namespaces are ours (the suite's nodes): end them, then the namespace.
      (doseq [pid (str/split-lines (:out (u/sh-quiet "ip" "netns" "pids" ns)))
              :when (re-matches #"\d+" (str/trim pid))]
        (u/sh-quiet "kill" "-CONT" (str/trim pid))
        (u/sh-quiet "kill" "-9" (str/trim pid)))
      (u/sh-quiet "ip" "netns" "del" ns))
    (doseq [i (range 1 10)]
      (u/sh-quiet "ip" "link" "del" (str prefix "v" i)))
    (u/sh-quiet "ip" "link" "del" bridge))

  (setup! [this test]
    (cleanup! this test)
    (u/sh! "ip" "link" "add" bridge "type" "bridge")
    (u/sh! "ip" "addr" "add" (str harness-ip "/24") "dev" bridge)
    (u/sh! "ip" "link" "set" bridge "up")
    (doseq [n (:nodes test)]
      (let [ns (netns-name n), v (veth-name n)]
        (u/sh! "ip" "netns" "add" ns)
        (u/sh! "ip" "link" "add" v "type" "veth" "peer" "name" "eth0" "netns" ns)
        (u/sh! "ip" "link" "set" v "master" bridge)
        (u/sh! "ip" "link" "set" v "up")
        (in-ns! n "ip" "addr" "add" (str (node-ip n) "/24") "dev" "eth0")
        (in-ns! n "ip" "link" "set" "eth0" "up")
        (in-ns! n "ip" "link" "set" "lo" "up")))
    (info "netns topology up:" bridge harness-ip (mapv (juxt netns-name node-ip) (:nodes test))))

  (ip-of [_ node] (node-ip node))
  (exec-prefix [_ node] ["ip" "netns" "exec" (netns-name node)])

  (drop-grudge! [_ _ grudge]
    (doseq [[dst srcs] grudge, src srcs]
      (in-ns! dst "iptables" "-w" "-A" "INPUT" "-s" (node-ip src) "-j" "DROP")))

  (lossy! [_ _ nodes p]
    (doseq [n nodes]
      (in-ns! n "iptables" "-w" "-A" "INPUT" "-i" "eth0" "-m" "statistic" "--mode" "random"
              "--probability" (str p) "-j" "DROP")))

  (heal! [_ test]
    (doseq [n (:nodes test)]
      (u/sh-quiet "ip" "netns" "exec" (netns-name n) "iptables" "-w" "-F" "INPUT"))))

(defn kill-orphaned-nodes!
  "Loopback mode has no namespace to sweep: a harness that died (kill -9) leaves its node JVMs
  running. Ends the processes named by $TMPDIR/rtn-jepsen/*/n*/node.pid that are still Ration
  nodes of this suite (their command line names a node.yaml under rtn-jepsen/), except those
  of keep-dir (the current run), and removes those stale run dirs. Called under the run lock."
  [keep-dir]
  (let [root (java.io.File. (System/getProperty "java.io.tmpdir") "rtn-jepsen")]
    (doseq [^java.io.File run (or (.listFiles root) [])
            :when (and (.isDirectory run) (not= (.getCanonicalPath run) (some-> keep-dir java.io.File. .getCanonicalPath)))]
      (doseq [^java.io.File n (or (.listFiles run) [])
              :let [pf (java.io.File. n "node.pid")]
              :when (.exists pf)
              :let [pid (str/trim (slurp pf))
                    cmd (try (str/replace (slurp (str "/proc/" pid "/cmdline")) "\u0000" " ") (catch Exception _ ""))]
              :when (and (re-matches #"\d+" pid) (str/includes? cmd "rtn-jepsen/") (str/includes? cmd "node.yaml"))]
        (warn "ending orphaned node" pid "of" (.getName run))
        (u/sh-quiet "kill" "-CONT" pid)
        (u/sh-quiet "kill" "-9" pid))
      (u/sh-quiet "rm" "-rf" (.getPath run)))))

(defrecord LoopbackNet []
  Net
  (setup! [_ test] (kill-orphaned-nodes! (:data-dir test)))
  (cleanup! [_ _])
  (ip-of [_ _] "127.0.0.1")
  (exec-prefix [_ _] [])
  (drop-grudge! [_ _ _] (throw (UnsupportedOperationException. "partitions need netns mode (root)")))
  (lossy! [_ _ _ _] (throw (UnsupportedOperationException. "packet loss needs netns mode (root)")))
  (heal! [_ _]))

(defn netns-available?
  "Root, ip and iptables present, and a namespace can be created and removed."
  []
  (and (u/root?)
       (zero? (:exit (u/sh-quiet "which" "ip")))
       (zero? (:exit (u/sh-quiet "which" "iptables")))
       (let [probe (str prefix "probe")]
         (u/sh-quiet "ip" "netns" "del" probe)
         (let [ok (zero? (:exit (u/sh-quiet "ip" "netns" "add" probe)))]
           (u/sh-quiet "ip" "netns" "del" probe)
           ok))))
