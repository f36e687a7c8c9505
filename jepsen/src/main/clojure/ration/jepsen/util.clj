(ns ration.jepsen.util
  "Small helpers: running commands, bounded polling, relative time."
  (:require [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.tools.logging :refer [debug warn]]))

(defn sh!
  "Runs a command; throws with its output unless it exits 0."
  [& args]
  (let [{:keys [exit out err]} (apply shell/sh args)]
    (when-not (zero? exit)
      (throw (ex-info (str "command failed (exit " exit "): " (str/join " " args) ": " (str/trim err))
                      {:args args :exit exit :out out :err err})))
    out))

(defn sh-quiet
  "Runs a command; returns {:exit :out :err}, never throws (for idempotent cleanup)."
  [& args]
  (try (apply shell/sh args)
       (catch Exception e {:exit -1 :out "" :err (str e)})))

(defn await-fn
  "Calls f every interval-ms until it returns truthy or timeout-ms passes; returns f's value or
  nil. Bounded in time and count."
  [f timeout-ms interval-ms]
  (let [deadline (+ (System/nanoTime) (* 1000000 (long timeout-ms)))]
    (loop [i 0]
      (let [v (try (f) (catch Exception e (debug e "await-fn attempt failed") nil))]
        (cond
          v v
          (or (> (System/nanoTime) deadline) (> i 100000)) nil
          :else (do (Thread/sleep (long interval-ms)) (recur (inc i))))))))

(declare open-http auth-token)

(defn http-get
  "GET url with a short timeout; {:status :body} or nil when unreachable. Presents the run's
  token: in security mode secure /status and /metrics answer only an identity that may read
  the whole cluster."
  [url timeout-ms]
  (try
    (let [c ^java.net.HttpURLConnection (open-http url)]
      (when (seq @auth-token)
        (.setRequestProperty c "Authorization" (str "Bearer " @auth-token)))
      (.setConnectTimeout c (int timeout-ms))
      (.setReadTimeout c (int timeout-ms))
      (try
        (let [status (.getResponseCode c)
              stream (if (< status 400) (.getInputStream c) (.getErrorStream c))]
          {:status status :body (if stream (slurp stream) "")})
        (finally (.disconnect c))))
    (catch Exception _ nil)))

;; The bearer token of the run's administrator (the nodes run in security mode secure and name
;; it by its salted hash in security.bootstrap-tokens): every client and every admin request
;; presents it. Set by the DB when it is created; "" = none.
(defonce auth-token (atom ""))

;; The run's TLS material (the nodes run TLS on every port with client certificates required):
;; {:client-tls ClientTls for RationClientOptions, :ssl-context SSLContext for HTTPS to the admin
;; ports}, both over the run's CA and its client certificate. Set by the DB when it makes the
;; certificates; nil = plaintext.
(defonce tls (atom nil))

(defn- open-http
  "An HttpURLConnection to url; with the run's TLS on, an http:// url is spoken as https:// with
  the run's CA and client certificate, so every admin call works whatever scheme it names."
  ^java.net.HttpURLConnection [^String url]
  (if-let [ctx (:ssl-context @tls)]
    (let [c ^javax.net.ssl.HttpsURLConnection
          (.openConnection (java.net.URL. (str/replace-first url #"^http://" "https://")))]
      (.setSSLSocketFactory c (.getSocketFactory ^javax.net.ssl.SSLContext ctx))
      c)
    (.openConnection (java.net.URL. url))))

(defn http-post
  "POST url (empty body) with a timeout; {:status :body} or nil when unreachable."
  [url timeout-ms]
  (try
    (let [c ^java.net.HttpURLConnection (open-http url)]
      (.setRequestMethod c "POST")
      (when (seq @auth-token)
        (.setRequestProperty c "Authorization" (str "Bearer " @auth-token)))
      (.setDoOutput c true)
      (.setConnectTimeout c (int timeout-ms))
      (.setReadTimeout c (int timeout-ms))
      (try
        (.close (.getOutputStream c))
        (let [status (.getResponseCode c)
              stream (if (< status 400) (.getInputStream c) (.getErrorStream c))]
          {:status status :body (if stream (slurp stream) "")})
        (finally (.disconnect c))))
    (catch Exception _ nil)))

(defn free-port
  "A TCP port free on 127.0.0.1 right now (bind port 0, close)."
  []
  (with-open [s (java.net.ServerSocket. 0 1 (java.net.InetAddress/getByName "127.0.0.1"))]
    (.getLocalPort s)))

(defn root?
  []
  (= "0" (str/trim (:out (sh-quiet "id" "-u")))))

(defn ms->ns [ms] (* 1000000 (long ms)))
(defn ns->s [ns] (/ (double ns) 1e9))
