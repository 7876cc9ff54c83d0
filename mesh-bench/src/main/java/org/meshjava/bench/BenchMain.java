package org.meshjava.bench;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs benchmarks and prints the side-by-side ratios the project's targets are stated in. With no
 * arguments it runs the serve-overhead suite; any arguments are passed to JMH as usual (e.g. a
 * benchmark name regex, {@code -t 2} for two threads).
 */
public final class BenchMain {
  private BenchMain() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    Options opts;
    if (args.length == 0) {
      opts =
          new OptionsBuilder().include("ServeOverheadBenchmark|SignatureChoiceBenchmark").build();
    } else {
      CommandLineOptions cmd;
      try {
        cmd = new CommandLineOptions(args);
      } catch (CommandLineOptionException e) {
        // One line and a usage exit, as every mesh command answers a mistake; not a stack trace.
        System.err.println(
            "mesh bench: "
                + String.valueOf(e.getMessage()).replaceAll("[\\r\\n]+", " ")
                + " (see 'mesh bench --help', and -h for JMH's options)");
        System.exit(2);
        return;
      }
      if (cmd.shouldHelp()
          || cmd.shouldList()
          || cmd.shouldListWithParams()
          || cmd.shouldListProfilers()
          || cmd.shouldListResultFormats()) {
        // Asked about the benchmarks rather than to run them: JMH's own entry point answers
        // (running them with these options would run every benchmark).
        org.openjdk.jmh.Main.main(args);
        return;
      }
      opts = cmd;
    }
    Collection<RunResult> results = new Runner(opts).run();
    Map<String, Double> score = new HashMap<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      String key = name.substring(name.lastIndexOf('.') + 1);
      String journal = r.getParams().getParam("journal");
      if (journal != null) {
        key = key + ":" + journal;
      }
      score.put(key, r.getPrimaryResult().getScore());
    }
    System.out.println();
    ratio(score, "serve", "cryptoFloor", "serve overhead vs crypto floor (target <= 1.5)");
    ratio(
        score,
        "serveWithLog",
        "serveWithoutLog",
        "serve with the transparency log / without (target <= 1.1)");
    ratio(score, "jdkSign", "bouncyCastleSign", "JDK Ed25519 sign time / BouncyCastle sign time");
    ratio(
        score,
        "jdkReusedSign",
        "bouncyCastleSign",
        "JDK Ed25519, Signature reused / BouncyCastle sign time");
    ratio(
        score,
        "bouncyCastleLowLevelSign",
        "bouncyCastleSign",
        "BouncyCastle low-level Ed25519.sign / SigningKey.sign");
    ratio(score, "estimatorWindow", "bareNanoTimePair", "estimator window / bare nanoTime pair");
    ratio(
        score,
        "raplFakeTreeWindow",
        "bareNanoTimePair",
        "RAPL (fake tree) window / bare nanoTime pair");
    // Throughput: the in-memory journal's rate over the file journal's is the durable cost.
    ratio(
        score,
        "grantedServe:memory",
        "grantedServe:file",
        "file journal cost: in-memory throughput / file throughput (target <= 2 at 8 threads)");
  }

  private static void ratio(Map<String, Double> s, String a, String b, String label) {
    if (s.containsKey(a) && s.containsKey(b) && s.get(b) > 0) {
      System.out.printf("%s: %.2f (%.3f / %.3f)%n", label, s.get(a) / s.get(b), s.get(a), s.get(b));
    }
  }
}
