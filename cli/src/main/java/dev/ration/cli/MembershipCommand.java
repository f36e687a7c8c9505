package dev.ration.cli;

import dev.ration.server.config.ConfigLoader;
import dev.ration.server.config.Quantities;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * `ration cluster add|remove|replace|transfer-leader`: membership changes, sent to the nodes'
 * admin HTTP endpoints ({@code POST /membership/<operation>}, docs/OPERATIONS.md "Membership")
 * rather than the client protocol: they are operator actions, like the admin endpoint's other
 * writes. Tries each --admin-servers address in turn and follows a non-leader's pointer to the
 * leader; while no node knows a leader (an election), asks them all again until --wait runs out.
 * --servers is not used; --output and --timeout (per HTTP attempt, on top of --wait) are.
 *
 * <p>Exit 0 done; 1 usage; 2 refused (unsafe, bad request, another change in progress, no
 * leader found); 3 indeterminate (timed out, failed, unreachable: look at `cluster status`).
 */
abstract class MembershipCommand implements Callable<Integer> {
  static final String DEFAULT_ADMIN = "127.0.0.1:7301,127.0.0.1:7302,127.0.0.1:7303";
  private static final String LEADER_ADMIN_HEADER = "Ration-Leader-Admin";
  private static final int MAX_REDIRECTS = 3;
  /** How often the nodes are asked again while none of them knows a leader. */
  private static final Duration ELECTION_POLL = Duration.ofMillis(250);

  @Mixin AdminOptions admin;
  @Mixin HelpOption help;
  @Spec CommandSpec spec;

  @Option(names = "--admin-servers", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
      defaultValue = "${env:RATION_ADMIN_SERVERS:-" + DEFAULT_ADMIN + "}",
      description = "Admin HTTP addresses of the nodes (default: ${DEFAULT-VALUE}; env RATION_ADMIN_SERVERS).")
  List<String> adminServers = new ArrayList<>();

  @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "2m",
      description = "How long the change may take, catching up included (default: ${DEFAULT-VALUE}, at most 10m).")
  String waitText = "2m";

  /** The operation's path segment: add, remove, replace, transfer-leader. */
  abstract String operation();

  /** The operation's query parameters (without wait). */
  abstract Map<String, String> parameters();

  @Override
  public final Integer call() {
    Duration wait = duration("--wait", waitText);
    if (wait.toMinutes() > 10) {
      throw new ParameterException(spec.commandLine(), "--wait: " + waitText + " is longer than 10m");
    }
    AdminHttp adminHttp = AdminHttp.of(admin.tls(), admin.timeout(), admin.token());
    HttpClient http = adminHttp.client();
    long deadline = System.nanoTime() + wait.toNanos();
    boolean waitingSaid = false;
    while (true) {
      List<String> failures = new ArrayList<>();
      HttpResponse<String> leaderless = null;
      String leaderlessFrom = null;
      for (String address : addresses()) {
        String target = address;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
          // A retry asks only for what is left of --wait: the whole change stays within it.
          Duration left = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 1_000_000L));
          HttpResponse<String> response;
          try {
            response = http.send(request(adminHttp, target, params(left), left.plus(admin.timeout())),
                HttpResponse.BodyHandlers.ofString());
          } catch (IOException e) {
            failures.add(target + ": " + e);
            break;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(Exit.INDETERMINATE, "interrupted");
          }
          Optional<String> leader = response.headers().firstValue(LEADER_ADMIN_HEADER);
          if (response.statusCode() == 421 && leader.isPresent() && !leader.get().equals(target)) {
            target = leader.get();
            continue;
          }
          if (response.statusCode() == 421) {
            // Not the leader and no leader known to it: an election is under way. The next
            // node may know one; if none does, all are asked again until --wait runs out. A
            // repeat is safe: add and replace resume, the others plan from the configuration
            // they find.
            leaderless = response;
            leaderlessFrom = target;
            break;
          }
          return answer(adminHttp, target, response, deadline);
        }
      }
      if (leaderless == null) {
        throw new CliFailure(Exit.INDETERMINATE,
            "no admin endpoint answered: " + String.join("; ", failures));
      }
      if (System.nanoTime() + ELECTION_POLL.toNanos() >= deadline) {
        return answer(adminHttp, leaderlessFrom, leaderless, deadline);
      }
      if (!waitingSaid) {
        waitingSaid = true;
        spec.commandLine().getErr().println("waiting for a leader: no node knows one (an election,"
            + " or a majority is down); asking again until --wait (" + waitText + ") runs out");
        spec.commandLine().getErr().flush();
      }
      try {
        Thread.sleep(ELECTION_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliFailure(Exit.INDETERMINATE, "interrupted");
      }
    }
  }

  private Map<String, String> params(Duration wait) {
    Map<String, String> params = new LinkedHashMap<>(parameters());
    params.put("wait", wait.toMillis() + "ms");
    return params;
  }

  private HttpRequest request(AdminHttp adminHttp, String address, Map<String, String> params,
      Duration timeout) {
    StringBuilder q = new StringBuilder();
    for (Map.Entry<String, String> e : params.entrySet()) {
      q.append(q.length() == 0 ? '?' : '&').append(e.getKey()).append('=')
          .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
    }
    return adminHttp.request(address, "/membership/" + operation() + q)
        .timeout(timeout).POST(HttpRequest.BodyPublishers.noBody()).build();
  }

  /**
   * The newcomer of an add or replace ({@code id}, admin address), to be confirmed from its own
   * status before "ok" is printed; empty for the other operations.
   */
  Optional<String[]> newcomer() {
    return Optional.empty();
  }

  /** The member a remove takes out, whose absence must leave a leader before "ok"; else empty. */
  Optional<String> removed() {
    return Optional.empty();
  }

  /** Prints the node's answer and turns its status into the exit code. */
  private int answer(AdminHttp adminHttp, String address, HttpResponse<String> response,
      long deadline) {
    Map<String, String> lines = new LinkedHashMap<>();
    for (String line : response.body().split("\n")) {
      int colon = line.indexOf(": ");
      if (colon > 0) {
        lines.put(line.substring(0, colon), line.substring(colon + 2));
      } else if (line.endsWith(":")) {
        lines.put(line.substring(0, line.length() - 1), "");
      }
    }
    int status = response.statusCode();
    String message = lines.getOrDefault("message", response.body().trim());
    if (status != 200) {
      String result = lines.getOrDefault("result", "HTTP " + status);
      int code = switch (status) {
        case 400, 409, 412, 421 -> Exit.FAILED;
        default -> Exit.INDETERMINATE;
      };
      throw new CliFailure(code, result + " (from " + address + "): " + message);
    }
    Optional<String[]> joining = newcomer();
    if (joining.isPresent()) {
      confirmNewcomer(adminHttp, address, joining.get()[0], joining.get()[1], message, deadline);
    }
    if (removed().isPresent()) {
      confirmLeaderWithout(adminHttp, removed().get(), message, deadline);
    }
    List<Fields> members = new ArrayList<>();
    List<String> voters = members(lines.getOrDefault("voters", ""), "voter", members);
    List<String> listeners = members(lines.getOrDefault("listeners", ""), "listener", members);
    Fields f = new Fields()
        .put("result", "ok")
        .put("message", message)
        .put("voters", String.join(",", voters))
        .put("listeners", String.join(",", listeners))
        .put("members", members);
    PrintWriter out = spec.commandLine().getOut();
    out.print(admin.output == AdminOptions.Format.json ? f.toJson() + "\n" : Tables.vertical(f));
    out.flush();
    return Exit.OK;
  }

  /**
   * After a remove, "ok" waits until a remaining member leads: a removed leader steps aside and
   * the others elect one, and the operator's next command (stop the removed node, the next
   * change) must find a cluster that serves. Asked of every admin address given but the
   * removed node's, until --wait runs out (at least once); otherwise exit 3.
   */
  private void confirmLeaderWithout(AdminHttp adminHttp, String removedId, String message,
      long deadline) {
    String last = "no answer yet";
    while (true) {
      for (String address : addresses()) {
        try {
          String status = get(adminHttp, admin.timeout(), address, "/status");
          String node = jsonString(status, "nodeId");
          if (!node.equals(removedId) && "LEADER".equals(jsonString(status, "role"))) {
            return;
          }
          if (!node.equals(removedId)) {
            last = node + " is " + jsonString(status, "role");
          }
        } catch (IOException | RuntimeException e) {
          last = address + ": " + e.getMessage();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CliFailure(Exit.INDETERMINATE, "interrupted");
        }
      }
      if (System.nanoTime() + CONFIRM_POLL.toNanos() >= deadline) {
        throw new CliFailure(Exit.INDETERMINATE, "removed, not confirmed: the leader said \""
            + message + "\", but no remaining member reported itself the leader within --wait ("
            + waitText + "): " + last + ". Check `ration cluster status`");
      }
      try {
        Thread.sleep(CONFIRM_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliFailure(Exit.INDETERMINATE, "interrupted");
      }
    }
  }

  /** The leader's caught-up gap (entries behind its commit index), as the server counts it. */
  static final long CAUGHT_UP_GAP = 100;
  private static final Duration CONFIRM_POLL = Duration.ofMillis(250);

  /**
   * The leader committed the change and sees the newcomer caught up; "ok" also needs the
   * newcomer's own word: its /status must show it running its Raft role (FOLLOWER or LEADER),
   * a voter of the configuration it holds, following a leader, with an applied index within
   * {@link #CAUGHT_UP_GAP} of the leader's commit index. A newcomer that shut its Raft server
   * down would still answer /status, but not like that. Asked until --wait runs out (at least
   * once); otherwise exit 3 with what it last said.
   */
  private void confirmNewcomer(AdminHttp adminHttp, String leaderAddress, String id,
      String newcomerAdmin, String message, long deadline) {
    String last = "no answer yet";
    while (true) {
      try {
        Optional<String> behind = notCaughtUp(adminHttp, admin.timeout(), leaderAddress, id,
            newcomerAdmin);
        if (behind.isEmpty()) {
          return;
        }
        last = behind.get();
      } catch (IOException | RuntimeException e) {
        last = "its status could not be read: " + e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliFailure(Exit.INDETERMINATE, "interrupted");
      }
      if (System.nanoTime() + CONFIRM_POLL.toNanos() >= deadline) {
        throw new CliFailure(Exit.INDETERMINATE, "not confirmed: the leader (" + leaderAddress
            + ") says \"" + message + "\", but " + id + " (admin " + newcomerAdmin + ") has not"
            + " confirmed it is a caught-up voter within --wait (" + waitText + "): " + last
            + ". Check `ration cluster status`; if its Raft role is not running, remove it,"
            + " wipe its data directory, start it with --join and add it again");
      }
      try {
        Thread.sleep(CONFIRM_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliFailure(Exit.INDETERMINATE, "interrupted");
      }
    }
  }

  /**
   * Why node {@code id} (its admin address {@code nodeAdmin}) is not yet a caught-up voter, as
   * its own /status says against the leader's commit index; empty when it is: running its Raft
   * role (FOLLOWER or LEADER), a voter of the configuration it holds, following a leader, with an
   * applied index within {@link #CAUGHT_UP_GAP} of the leader's commit index.
   */
  static Optional<String> notCaughtUp(AdminHttp adminHttp, Duration timeout, String leaderAddress,
      String id, String nodeAdmin) throws IOException, InterruptedException {
    String leaderStatus = get(adminHttp, timeout, leaderAddress, "/status");
    String status = get(adminHttp, timeout, nodeAdmin, "/status");
    long leaderCommit = jsonLong(leaderStatus, "commitIndex");
    String role = jsonString(status, "role");
    long applied = jsonLong(status, "appliedIndex");
    List<String> peers = jsonIds(status);
    List<String> listeners = jsonStrings(status, "listeners");
    String leaderId = jsonString(status, "leaderId");
    boolean voter = peers.contains(id) && !listeners.contains(id);
    boolean running = role.equals("FOLLOWER") || role.equals("LEADER");
    if (running && voter && !leaderId.isEmpty() && applied + CAUGHT_UP_GAP >= leaderCommit) {
      return Optional.empty();
    }
    return Optional.of("role " + role + ", " + (voter ? "a voter" : "not a voter")
        + " in its configuration " + peers + ", leader " + (leaderId.isEmpty() ? "unknown" : leaderId)
        + ", applied index " + applied + " (leader's commit index " + leaderCommit + ")");
  }

  static String get(AdminHttp adminHttp, Duration timeout, String address, String path)
      throws IOException, InterruptedException {
    HttpResponse<String> r = adminHttp.client().send(
        adminHttp.request(address, path).timeout(timeout).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(address + path + ": HTTP " + r.statusCode() + " " + r.body().trim());
    }
    return r.body();
  }

  // /status is flat JSON of known shape (StatusJson): strings, numbers, and the peers array.
  static String jsonString(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
    if (!m.find()) {
      throw new IllegalArgumentException("no " + name + " in " + json);
    }
    return m.group(1);
  }

  static long jsonLong(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":(-?\\d+)").matcher(json);
    if (!m.find()) {
      throw new IllegalArgumentException("no " + name + " in " + json);
    }
    return Long.parseLong(m.group(1));
  }

  static List<String> jsonStrings(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\\[([^\\]]*)\\]").matcher(json);
    List<String> out = new ArrayList<>();
    if (m.find()) {
      Matcher item = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(m.group(1));
      while (item.find()) {
        out.add(item.group(1));
      }
    }
    return out;
  }

  /** The ids of the "peers" array. */
  static List<String> jsonIds(String json) {
    int start = json.indexOf("\"peers\":[");
    int end = start < 0 ? -1 : json.indexOf("]", start);
    List<String> out = new ArrayList<>();
    if (end > start) {
      Matcher m = Pattern.compile("\"id\":\"([^\"]*)\"").matcher(json.substring(start, end));
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Parses "id=raft/client/admin,..." into ids, adding one member row each. */
  private static List<String> members(String text, String role, List<Fields> rows) {
    List<String> ids = new ArrayList<>();
    for (String item : text.split(",")) {
      if (item.isBlank()) {
        continue;
      }
      int eq = item.indexOf('=');
      String id = eq < 0 ? item : item.substring(0, eq);
      String[] a = eq < 0 ? new String[0] : item.substring(eq + 1).split("/", -1);
      ids.add(id);
      rows.add(new Fields().put("id", id).put("role", role)
          .put("raftAddress", a.length > 0 ? a[0] : "")
          .put("clientAddress", a.length > 1 ? a[1] : "")
          .put("adminAddress", a.length > 2 ? a[2] : ""));
    }
    return ids;
  }

  private List<String> addresses() {
    List<String> out = new ArrayList<>();
    for (String s : adminServers) {
      String t = s.trim();
      if (t.isEmpty()) {
        continue;
      }
      ConfigLoader.addressProblem(t).ifPresent(why -> {
        throw new ParameterException(spec.commandLine(), "--admin-servers: '" + t + "' " + why);
      });
      out.add(t);
    }
    if (out.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--admin-servers: name at least one host:port");
    }
    return out;
  }

  Duration duration(String option, String text) {
    try {
      return Quantities.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
    }
  }

  void checkAddress(String option, String value) {
    ConfigLoader.addressProblem(value).ifPresent(why -> {
      throw new ParameterException(spec.commandLine(), option + ": '" + value + "' " + why);
    });
  }

  /** The new member's three addresses, shared by add and replace. */
  static final class NewMember {
    @Option(names = "--raft", required = true, paramLabel = "HOST:PORT",
        description = "The new node's Raft (gRPC) address, as in its cluster.peers entry.")
    String raft;

    @Option(names = "--client", required = true, paramLabel = "HOST:PORT",
        description = "The new node's client address.")
    String client;

    @Option(names = "--admin", required = true, paramLabel = "HOST:PORT",
        description = "The new node's admin HTTP address.")
    String adminAddress;

    void putInto(MembershipCommand c, Map<String, String> params) {
      c.checkAddress("--raft", raft);
      c.checkAddress("--client", client);
      c.checkAddress("--admin", adminAddress);
      params.put("raft", raft);
      params.put("client", client);
      params.put("admin", adminAddress);
    }
  }

  @Command(name = "add", description = "Add a running node (started with 'ration server --join') as a"
      + " voter in one change once it has caught up; 'ok' only when the new node itself reports"
      + " it is a caught-up voter.")
  static final class Add extends MembershipCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "The new node's id.")
    String id;

    @Mixin NewMember member;

    @Override
    String operation() {
      return "add";
    }

    @Override
    Optional<String[]> newcomer() {
      return Optional.of(new String[] {id, member.adminAddress});
    }

    @Override
    Map<String, String> parameters() {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("id", id);
      member.putInto(this, p);
      return p;
    }
  }

  @Command(name = "remove", description = "Remove a member; refused when the remaining voters would"
      + " not hold a majority of up-to-date nodes. Stop the removed node afterwards.")
  static final class Remove extends MembershipCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "The member to remove.")
    String id;

    @Override
    String operation() {
      return "remove";
    }

    @Override
    Optional<String> removed() {
      return Optional.of(id);
    }

    @Override
    Map<String, String> parameters() {
      return Map.of("id", id);
    }
  }

  @Command(name = "replace", description = "Replace voter OLD by a new running node (started with"
      + " 'ration server --join'): the new node catches up first, then the two are swapped in one"
      + " change; 'ok' only when the new node itself reports it is a caught-up voter.")
  static final class Replace extends MembershipCommand {
    @Parameters(index = "0", paramLabel = "OLD", description = "The voter to replace.")
    String old;

    @Parameters(index = "1", paramLabel = "NEW", description = "The new node's id.")
    String id;

    @Mixin NewMember member;

    @Override
    String operation() {
      return "replace";
    }

    @Override
    Optional<String[]> newcomer() {
      return Optional.of(new String[] {id, member.adminAddress});
    }

    @Override
    Map<String, String> parameters() {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("old", old);
      p.put("id", id);
      member.putInto(this, p);
      return p;
    }
  }

  @Command(name = "transfer-leader", description = "Hand leadership to voter ID.")
  static final class TransferLeader extends MembershipCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "The voter to lead.")
    String id;

    @Override
    String operation() {
      return "transfer-leader";
    }

    @Override
    Map<String, String> parameters() {
      return Map.of("id", id);
    }
  }
}
