package dev.ration.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints the simulation table (Markdown) for docs/benchmarks.md: every scenario of
 * {@link Scenarios#all()} and the variants. Exits 1 if any scenario exceeded its bound.
 * Run with {@code scripts/simulate.sh}.
 */
public final class SimulationMain {
  private SimulationMain() {}

  public static void main(String[] args) {
    List<Scenario> scenarios = new ArrayList<>(Scenarios.all());
    if (args.length == 0 || !args[0].equals("--core")) {
      scenarios.addAll(Scenarios.variants());
    }
    System.out.println("| scenario | admitted | utilization | hot at 90 % R (admissions, 200 ms) "
        + "| hot share ≥ 90 % R | max in 10 ms / 100 ms / 1 s / 5 s / 10 s / run vs bound | excess "
        + "| E reported | ledger entries |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    boolean failed = false;
    for (Scenario s : scenarios) {
      Report r = Simulation.run(s);
      StringBuilder w = new StringBuilder();
      for (Report.Window x : r.windows()) {
        if (w.length() > 0) {
          w.append(" · ");
        }
        w.append(x.maxAdmitted()).append('/').append(x.bound());
      }
      System.out.println(String.format(Locale.ROOT, "| %s | %d | %.1f %% | %s | %s | %s | %d | %d | %d |",
          r.scenario(), r.admitted(), 100 * r.utilization(), r.timeTo90(), r.shareTo90(), w,
          r.totalExcess(), r.emergencyReported(), r.ledgerEntries()));
      failed |= r.totalExcess() > 0;
    }
    if (args.length == 0 || !args[0].equals("--core")) {
      for (Scenario s : Scenarios.knownGaps()) {
        Report r = Simulation.run(s);
        StringBuilder w = new StringBuilder();
        for (Report.Window x : r.windows()) {
          if (w.length() > 0) {
            w.append(" · ");
          }
          w.append(x.maxAdmitted()).append('/').append(x.bound());
        }
        System.out.println(String.format(Locale.ROOT,
            "| %s (known gap, not counted) | %d | %.1f %% | %s | %s | %s | %d | %d | %d |",
            r.scenario(), r.admitted(), 100 * r.utilization(), r.timeTo90(), r.shareTo90(), w,
            r.totalExcess(), r.emergencyReported(), r.ledgerEntries()));
      }
    }
    if (failed) {
      System.err.println("EXCESS over the bound in at least one scenario");
      System.exit(1);
    }
  }
}
