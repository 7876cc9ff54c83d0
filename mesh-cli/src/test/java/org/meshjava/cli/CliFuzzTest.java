package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Every subcommand of {@code mesh}, as its picocli model lists them, run with hostile arguments:
 * each option and each parameter in turn given an empty string, {@code -}, a folder, a missing
 * file, a device, a binary or empty file, a unicode name, huge and negative numbers, and each
 * option repeated. Whatever the command makes of them, it exits 0, 1 (a refusal in our words) or 2
 * (a usage error), never {@link Mesh#EXIT_INTERNAL}: an exception that is not one of ours (a {@code
 * NullPointerException}, a record's {@code IllegalArgumentException}) means a command let through
 * what it should have refused, and {@code Mesh.run}'s one-line handler would otherwise hide it as
 * an ordinary refusal.
 *
 * <p>The default suite gives each option and parameter a rotating quarter of the hostile values
 * (every value still reaches every kind of argument across a command's options, about 400 cases);
 * {@code -Pslow} gives every one of them every value (about 1 600 cases, a minute).
 */
class CliFuzzTest {
  @TempDir Path tmp;

  /** Options whose value is a file the command writes: never given a device or a folder above. */
  private static final Set<String> OUTPUTS =
      Set.of("--out", "--out-body", "--out-dir", "-o", "--port-file");

  /**
   * Port 0 (a free one the system picks) for a serve and its console, so that neither a parallel
   * run nor another program on the machine can hold it; the serve's port file says which it got.
   */
  private static final String PORT = "0";

  private static final String CONSOLE_PORT = "0";

  /** A loopback port nothing listens on (TCP port 1 is reserved), for a server or a database. */
  private static final String NOBODY = "127.0.0.1:1";

  /** Where a serve that started writes its port; removed after each case. */
  private Path portFile() {
    return tmp.resolve("serve.port");
  }

  private Path key;
  private Path config;
  private int outputs;

  private List<String> fileValues() throws Exception {
    Path empty = tmp.resolve("empty");
    if (!Files.exists(empty)) {
      Files.createFile(empty);
      byte[] bytes = new byte[256];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) i;
      }
      Files.write(tmp.resolve("binary"), bytes);
      Files.createDirectories(tmp.resolve("folder"));
    }
    return List.of(
        "",
        " ",
        "-",
        "/dev/null",
        tmp.resolve("folder").toString(),
        tmp.resolve("folder") + "/",
        tmp.resolve("missing").toString(),
        tmp.resolve("missing/deeper/file").toString(),
        tmp.resolve("ünï☃ \u202e.txt").toString(),
        empty.toString(),
        tmp.resolve("binary").toString(),
        "/",
        "/proc/self/status",
        "postgresql://nobody@" + NOBODY + "/none?connect_timeout=1",
        "mysql://x/y");
  }

  private static final List<String> TEXT_VALUES =
      List.of(
          "",
          " ",
          "-",
          "-1",
          "0",
          "99999999999999999999",
          "9223372036854775807",
          "-9223372036854775808",
          "1e3",
          "NaN",
          "٨٠",
          "ünï☃\u202e",
          "a\tb",
          "x".repeat(5000),
          "%s%n");

  @Test
  void everySubcommand_withAQuarterOfTheHostileValuesEach_exitsARefusalOrUsageError()
      throws Exception {
    assertNoInternalError(4, 300);
  }

  @Test
  @Tag("slow")
  void everySubcommand_withHostileArguments_exitsARefusalOrUsageError_neverAnInternalError()
      throws Exception {
    assertNoInternalError(1, 500);
  }

  /**
   * Runs every subcommand's cases, each argument given every {@code stride}-th hostile value
   * (starting at its own offset, so neighbouring arguments get different ones), and checks that
   * there were more than {@code leastCases}.
   */
  private void assertNoInternalError(int stride, int leastCases) throws Exception {
    key = tmp.resolve("steward.key");
    assertThat(MeshCommandTest.mesh("key", "generate", "--out", key.toString()).code()).isZero();
    config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        "{\"meter\": \"estimator\", \"backends\": [{\"type\": \"reference\", \"name\": \"small\"}]}");
    // Nothing a case is given writes into the folder the test runs in (the module's).
    List<String> here = names(Path.of(""));
    List<String> failures = new ArrayList<>();
    int cases = 0;
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      for (CommandLine leaf : CommandTree.leaves(new CommandLine(new Mesh()))) {
        for (List<String> args : cases(leaf, stride)) {
          cases++;
          String problem = args.equals(List.of("demo")) ? demo() : run(runner, args, portFile());
          if (problem != null) {
            failures.add(String.join(" ", shorten(args)) + "\n    " + problem);
          }
        }
      }
    } finally {
      runner.shutdownNow();
    }
    assertThat(names(Path.of(""))).as("files written into the working folder").isEqualTo(here);
    assertThat(cases).isGreaterThan(leastCases);
    assertThat(failures).as("%d of %d cases", failures.size(), cases).isEmpty();
  }

  /**
   * The line between the two kinds of failure: mesh's own exceptions and a file's are refusals
   * (exit 1), the JDK's unchecked ones are bugs (exit {@link Mesh#EXIT_INTERNAL}).
   */
  @Test
  void refusals_areOurExceptionsAndFiles_bugsAreTheRest() {
    assertThat(Mesh.isRefusal(new CliException("no such key"))).isTrue();
    assertThat(Mesh.isRefusal(new java.nio.file.NoSuchFileException("k.key"))).isTrue();
    assertThat(Mesh.isRefusal(new java.io.UncheckedIOException(new java.io.IOException("x"))))
        .isTrue();
    assertThat(Mesh.isRefusal(new NullPointerException())).isFalse();
    assertThat(Mesh.isRefusal(new IllegalArgumentException("a record's check"))).isFalse();
    assertThat(Mesh.isRefusal(new ArithmeticException("long overflow"))).isFalse();
  }

  static List<String> names(Path folder) throws java.io.IOException {
    try (var files = Files.list(folder)) {
      return files.map(Path::toString).sorted().toList();
    }
  }

  /** What is wrong with running {@code args}, or null. */
  private static String run(ExecutorService runner, List<String> args, Path portFile)
      throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Future<Integer> done =
        runner.submit(
            () ->
                Mesh.run(
                    new java.io.ByteArrayInputStream(new byte[0]),
                    new PrintWriter(out, true),
                    new PrintWriter(err, true),
                    args.toArray(String[]::new)));
    int code;
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (true) {
        try {
          code = done.get(100, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          // A serve that started runs until interrupted, as InProcessServe stops it; no failure.
          boolean started = out.toString().contains("listening on");
          if (started || System.nanoTime() > until) {
            done.cancel(true);
            awaitStopped(runner);
            return started ? null : "still running after 120 s";
          }
        }
      }
    } catch (java.util.concurrent.ExecutionException e) {
      return "threw " + e.getCause();
    } finally {
      Files.deleteIfExists(portFile);
    }
    return problem(code, err.toString());
  }

  /**
   * What is wrong with the whole demo's run, or null: the same command line {@link MeshCommandTest}
   * runs, so its one run in this JVM is judged here as any case is, and checked to have written
   * nothing into the working folder.
   */
  private static String demo() {
    MeshCommandTest.Demo d = MeshCommandTest.demo();
    if (!d.after().equals(d.before())) {
      return "wrote into the working folder: " + d.before() + " then " + d.after();
    }
    return problem(d.run().code(), d.run().err());
  }

  /**
   * What is wrong with a command that exited {@code code} saying {@code said} on stderr, or null.
   */
  private static String problem(int code, String said) {
    if (code == Mesh.EXIT_INTERNAL || said.contains("internal error")) {
      return "exit " + code + ": " + said.strip();
    }
    if (code != 0 && code != 1 && code != 2) {
      return "exit " + code + ": " + said.strip();
    }
    if (code != 0 && said.isBlank()) {
      return "exit " + code + " with nothing on stderr";
    }
    return null;
  }

  /** Waits until the runner's thread has finished the case it was interrupted in. */
  private static void awaitStopped(ExecutorService runner) throws Exception {
    runner.submit(() -> {}).get(60, TimeUnit.SECONDS);
  }

  private static List<String> shorten(List<String> args) {
    return args.stream().map(a -> a.length() > 40 ? a.substring(0, 20) + "…" : a).toList();
  }

  private static boolean isFile(ArgSpec a) {
    String label = a.paramLabel();
    return a.type() == Path.class
        || a.type() == InputFile.class
        || List.of(a.auxiliaryTypes()).contains(Path.class)
        || List.of(a.auxiliaryTypes()).contains(InputFile.class)
        || label.contains("FILE")
        || label.contains("DIR")
        || label.contains("URL");
  }

  private static boolean isOutput(OptionSpec o) {
    return List.of(o.names()).stream().anyMatch(OUTPUTS::contains);
  }

  /** A value the option or parameter would accept, as far as its kind tells. */
  private String plausible(ArgSpec a) {
    if (a instanceof OptionSpec o) {
      if (isOutput(o)) {
        return tmp.resolve("out-" + outputs++).toString();
      }
      String name = o.longestName();
      switch (name) {
        case "--port", "--console-port" -> {
          return PORT;
        }
        case "--config" -> {
          return config.toString();
        }
        case "--server" -> {
          return "http://" + NOBODY;
        }
        case "--subject" -> {
          return "/bin/false";
        }
        case "--meter" -> {
          return "estimator";
        }
        default -> {}
      }
    }
    return isFile(a) ? key.toString() : "1";
  }

  /** The command line with every required option and parameter given a plausible value. */
  private List<String> base(CommandLine leaf, ArgSpec except) {
    List<String> args = new ArrayList<>(CommandTree.path(leaf));
    var spec = leaf.getCommandSpec();
    for (OptionSpec o : spec.options()) {
      if (o == except || o.usageHelp() || o.versionHelp()) {
        continue;
      }
      // A serve that starts is stopped once it has written its port file; it listens on this
      // test's port, and on a configuration that loads no model.
      boolean serveDefault =
          spec.name().equals("serve")
              && Set.of("--port", "--config", "--port-file").contains(o.longestName());
      if ((o.required() || serveDefault) && o.arity().max() > 0) {
        args.add(o.longestName());
        args.add(o.longestName().equals("--port-file") ? portFile().toString() : plausible(o));
      }
    }
    if (spec.name().equals("serve") && except instanceof OptionSpec o) {
      // The console given a free port too, unless that is the option tried: its default, 8081,
      // is a fixed one.
      if (o.longestName().startsWith("--console-")) {
        args.add("--console");
      }
      if (!o.longestName().equals("--console-port") && o.longestName().startsWith("--console")) {
        args.addAll(List.of("--console-port", CONSOLE_PORT));
      }
    }
    for (PositionalParamSpec p : spec.positionalParameters()) {
      if (p != except && p.arity().min() > 0) {
        for (int i = 0; i < p.arity().min(); i++) {
          args.add(plausible(p));
        }
      }
    }
    return args;
  }

  /** Every {@code stride}-th of {@code values}, from {@code offset}. */
  private static List<String> every(List<String> values, int stride, int offset) {
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      if ((i + offset) % stride == 0) {
        kept.add(values.get(i));
      }
    }
    return kept;
  }

  private List<List<String>> cases(CommandLine leaf, int stride) throws Exception {
    List<List<String>> cases = new ArrayList<>();
    int offset = 0;
    var spec = leaf.getCommandSpec();
    cases.add(base(leaf, null));
    for (OptionSpec o : spec.options()) {
      if (o.usageHelp() || o.versionHelp()) {
        continue;
      }
      String name = o.longestName();
      if (o.arity().max() == 0) {
        List<String> twice = base(leaf, null);
        twice.add(name);
        twice.add(name);
        cases.add(twice);
        continue;
      }
      List<String> values =
          new ArrayList<>(every(isFile(o) ? fileValues() : TEXT_VALUES, stride, offset++));
      if (isOutput(o)) {
        // Nothing is written outside this test's folder: not over a device, and not under a
        // relative name (the module's folder), which a URL or a blank name would be.
        values.removeIf(v -> !v.isEmpty() && !v.startsWith(tmp.toString()));
      }
      for (String v : values) {
        List<String> args = base(leaf, o);
        args.add(name);
        args.add(v);
        cases.add(args);
      }
      List<String> repeated = base(leaf, o);
      for (int i = 0; i < 2; i++) {
        repeated.add(name);
        repeated.add(plausible(o));
      }
      cases.add(repeated);
      List<String> glued = base(leaf, o);
      glued.add(name + "=");
      cases.add(glued);
    }
    for (PositionalParamSpec p : spec.positionalParameters()) {
      for (String v : every(isFile(p) ? fileValues() : TEXT_VALUES, stride, offset++)) {
        List<String> args = base(leaf, p);
        args.add(v);
        cases.add(args);
      }
    }
    List<String> unicodeWord = base(leaf, null);
    unicodeWord.add("--ünï☃");
    cases.add(unicodeWord);
    List<String> stray = base(leaf, null);
    stray.add(new String(new byte[] {(byte) 0xc3}, StandardCharsets.ISO_8859_1));
    cases.add(stray);
    return cases;
  }
}
