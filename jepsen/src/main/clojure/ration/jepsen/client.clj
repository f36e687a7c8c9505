(ns ration.jepsen.client
  "Jepsen's client protocol, and the rule that maps Ration's errors onto the outcome of an op:
  :ok happened, :fail certainly did not happen, :info unknown. A RationException that is
  definite() is :fail; an indeterminate one, a timeout, or any other exception is :info."
  (:require [ration.jepsen.util :as u])
  (:import (dev.ration.client RationClient RationClientOptions RationException)
           (java.time Duration)
           (java.util.concurrent CompletableFuture ExecutionException TimeUnit TimeoutException)))

(defprotocol Client
  (open! [client test node] "A copy of the client bound to node; no state change in the DB.")
  (setup! [client test] "Creates what the workload needs (idempotent).")
  (invoke! [client test op] "Applies op; returns its completion (:ok, :fail or :info).")
  (teardown! [client test] "Undoes setup! where it matters.")
  (close! [client test] "Releases connections."))

(defprotocol Reusable
  (reusable? [client test] "True: keep this client after an :info (do not reopen it)."))

(defprotocol Prepare
  (prepare [client test op]
    "Fills the invocation's :value from state the client holds, before it is recorded. Called
    by the interpreter on the main thread while the client's worker is idle."))

(defn error-completion
  "The completion of op for a throwable t."
  [op ^Throwable t]
  (let [t (if (and (instance? ExecutionException t) (.getCause t)) (.getCause t) t)
        t (if (and (instance? java.util.concurrent.CompletionException t) (.getCause t)) (.getCause t) t)]
    (cond
      (instance? RationException t)
      (assoc op
             :type (if (.definite ^RationException t) :fail :info)
             :error [(keyword (str (.code ^RationException t))) (.getMessage t)])

      (instance? TimeoutException t)
      (assoc op :type :info :error [:timeout "client timeout"])

      :else
      (assoc op :type :info :error [:exception (str t)]
             :exception (str (.getName (class t)) ": " (.getMessage t))))))

(defn await!
  "Waits for f at most timeout-ms; throws TimeoutException past it (the op becomes :info)."
  [^CompletableFuture f timeout-ms]
  (.get f (long timeout-ms) TimeUnit/MILLISECONDS))

(defn record!
  "Records op (an :invoke or a completion, with :process :f :value) in the history now, from any
  thread: for calls a client makes in the background (a limiter's lease calls). The
  interpreter stamps :time and :index. A no-op outside a run."
  [test op]
  (when-let [f (:record! test)] (f op)))

(defn side-process!
  "A fresh process id for a background call (never a client thread's: the interpreter's side
  range starts at 1,000,000), so overlapping background calls pair up as ops of their own."
  [test]
  (if-let [f (:next-side-process! test)] (f) 1000000))

(defmacro with-errors
  "Evaluates body (which returns a completion); an exception becomes the completion of op."
  [op & body]
  `(try ~@body
        (catch Throwable t# (error-completion ~op t#))))

(defn open-ration-client
  "A RationClient for client thread t of a workload: the node addresses rotated so thread t talks
  first to node t mod n, bounded retries with short backoff, the request deadline of the
  workload's opts, a fixed client id (seed, client-low) so resends carry the same request
  ids across reconnections, the run's administrator token (the nodes run secure) and the run's
  TLS files (CA and client certificate) when the nodes run TLS."
  ^RationClient [addrs t opts seed client-low]
  (let [i (mod t (count addrs))
        ordered (vec (concat (drop i addrs) (take i addrs)))]
    (RationClient. (-> (RationClientOptions/builder)
                       (.addresses ordered)
                       (.connectTimeout (Duration/ofMillis 3000))
                       (.requestDeadline (Duration/ofMillis (:request-deadline-ms opts)))
                       (.maxRetries 5)
                       (.backoffBase (Duration/ofMillis 20))
                       (.backoffMax (Duration/ofMillis 300))
                       (.clientId (long seed) (long client-low))
                       (.token ^String @u/auth-token)
                       (cond-> (:client-tls @u/tls) (.tls (:client-tls @u/tls)))
                       (.build)))))
