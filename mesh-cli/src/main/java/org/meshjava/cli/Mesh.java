package org.meshjava.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code mesh} command: the demo, the HTTP binding, verification, the journal and grant tools.
 */
@Command(
    name = "mesh",
    versionProvider = MeshVersion.class,
    description = "Energy-accounted inference serving and routing (mesh/1).",
    // The launcher runs these itself (they need the source tree); listed so --help names every
    // command the README does.
    footer = {
      "Run through the ./mesh launcher in a checkout, also:",
      "  test [MAVEN-ARGS...]  Run the default test suite (./mvnw verify).",
      "  format                Format the tree with google-java-format.",
      "  bench [JMH-ARGS...]   Run the benchmarks and print their ratios.",
      "Each takes --help."
    },
    subcommands = {
      DemoCommand.class,
      ServeCommand.class,
      VerifyCommand.class,
      JournalCommand.class,
      KeyCommand.class,
      GrantCommand.class,
      ConformanceCommand.class,
      LogCommand.class,
      // `mesh help demo` as `mesh demo --help`: the launcher and the usage text name `help`.
      CommandLine.HelpCommand.class
    })
public final class Mesh extends CommandGroup {
  /** Creates the command. */
  public Mesh() {}

  /**
   * Runs the command with {@code args}, standard input the process's, and returns its exit code.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    return run(InputFile.StandardInput.ofProcess(), out, err, args);
  }

  /**
   * Runs the command with {@code args} and returns its exit code; an input file named {@code -} is
   * read from {@code in}.
   */
  public static int run(InputStream in, PrintWriter out, PrintWriter err, String... args) {
    try {
      if (args == null) {
        throw new NullPointerException("no argument array");
      }
      for (int i = 0; i < args.length; i++) {
        if (args[i] == null) {
          throw new NullPointerException("argument " + (i + 1) + " is null");
        }
      }
      return execute(in, out, err, args);
    } catch (RuntimeException | Error e) {
      // picocli prints a stack trace and exits 1 for what escapes a command (its help or version
      // text failing, a null argument) and lets an Error through; a bug is one line and 70 here
      // as it is inside a command, and the JVM running out of memory its own line and 71.
      err.println("mesh: " + failure(e));
      err.flush();
      return exitCode(e);
    }
  }

  private static int execute(InputStream in, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = new CommandLine(new Mesh());
    cl.setHelpFactory(new HelpText());
    // An empty file name is the current folder to Path.of, which every command then calls "a
    // folder" or "exists"; say what was typed instead.
    cl.registerConverter(Path.class, text -> Path.of(namedFile(text)));
    // One standard input per run: every input named "-" is it, and only the first may read it.
    InputFile.StandardInput stdin = new InputFile.StandardInput(in);
    cl.registerConverter(InputFile.class, text -> InputFile.of(fileName(text), stdin));
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionStrategy(
        parseResult -> {
          // A command that must wait to open a file says so on its err, led by its name.
          CommandLine ran = parseResult.asCommandLineList().getLast();
          String name = ran.getCommandSpec().qualifiedName();
          PrintWriter said = ran.getErr();
          Consumer<String> waiting =
              line -> {
                said.println(name + ": " + line);
                said.flush();
              };
          try {
            return ScopedValue.where(InputFile.WAITING, waiting)
                .where(InputFile.STANDARD_INPUT, stdin)
                .call(() -> new CommandLine.RunLast().execute(parseResult));
          } catch (CommandLine.ParameterException | CommandLine.ExecutionException handled) {
            throw handled;
          } catch (Exception | Error e) {
            // Thrown outside the command itself (drawing --help or --version) or an Error from
            // it, which picocli does not hand to the handler below: handed to it here, so that
            // every failure is said the same way.
            throw new CommandLine.ExecutionException(ran, String.valueOf(e), e);
          }
        });
    cl.setExecutionExceptionHandler(
        (thrown, commandLine, parseResult) -> {
          // An Error reaches here inside picocli's ExecutionException, which says nothing itself.
          Throwable e =
              thrown instanceof CommandLine.ExecutionException x && x.getCause() instanceof Error c
                  ? c
                  : thrown;
          // One line and a non-zero exit, never a stack trace. A refusal the user can act on
          // (ours, or a file's) exits 1 in its own words; anything else is a bug in mesh, said
          // as one and exited EXIT_INTERNAL, so it is not mistaken for a refusal of the input.
          String name = commandLine.getCommandSpec().qualifiedName();
          PrintWriter said = commandLine.getErr();
          if (ranOutOfMemory(e).isPresent() || !isRefusal(e)) {
            said.println(name + ": " + failure(e));
            return exitCode(e);
          }
          String msg =
              e instanceof IOException io
                  ? UserFile.reason(io)
                  : e instanceof java.io.UncheckedIOException u
                      ? UserFile.reason(java.util.Objects.requireNonNull(u.getCause()))
                      : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
          said.println(name + ": " + msg.replaceAll("[\\r\\n]+", " "));
          return 1;
        });
    cl.setParameterExceptionHandler(
        (e, arguments) -> {
          // A usage mistake is one line naming it and where the help is, as for any other error;
          // the full usage text is what --help is for.
          CommandLine where = e.getCommandLine();
          String name = where.getCommandSpec().qualifiedName();
          CommandLine.ParameterException said = e;
          List<String> unknown = unknownOptions(where);
          if ((e instanceof CommandLine.MissingParameterException
                  || e instanceof CommandLine.UnmatchedArgumentException)
              && !unknown.isEmpty()) {
            // picocli checks required options before unknown ones, so `--output x.key` for
            // `--out x.key` would be reported as a missing --out, never naming what was typed;
            // and its own list of unmatched words names a mistyped option's value as another
            // unknown option (`--jounral x`: '--jounral', 'x'). Name the options alone.
            said = new CommandLine.UnmatchedArgumentException(where, unknown);
          }
          String what = String.valueOf(said.getMessage()).replaceAll("[\\r\\n]+", " ");
          if (said instanceof CommandLine.UnmatchedArgumentException u) {
            // picocli's own guess compares letter pairs, so it misses two swapped letters
            // (`--prot` for --port); the configuration keys' nearest-key rule finds those.
            // The same rule, first, for a mistyped command among the subcommands of where it was
            // typed: picocli's guess names `serve` for `tset`, and never the launcher's `test`.
            // Where a command was typed, that rule alone: picocli's fallback named `log` for
            // `bogus` (two letters in common), a guess that sends a user the wrong way.
            boolean commandWord = unknown.isEmpty() && isCommandWord(where, u);
            List<String> meant =
                commandWord
                    ? nearestSubcommands(where, u)
                    : u.getSuggestions().isEmpty()
                        ? nearestOptions(where, unknown)
                        : u.getSuggestions();
            if (!meant.isEmpty()) {
              what += "; did you mean " + NearestKey.alternatives(meant) + "?";
            }
          }
          where.getErr().println(name + ": " + what + " (see '" + name + " --help')");
          return where.getCommandSpec().exitCodeOnInvalidInput();
        });
    return cl.execute(args);
  }

  /**
   * The exit status of a command that failed by a bug in mesh rather than a refusal of what it was
   * given (1) or a usage mistake (2): {@code EX_SOFTWARE} of BSD's sysexits.h.
   */
  static final int EXIT_INTERNAL = 70;

  /**
   * The exit status of a command that stopped because the JVM ran out of memory ({@link
   * OutOfMemoryError}: a model larger than the heap, a thread the system would not start): a limit
   * of the machine or of the JVM's settings, which the operator raises, not a bug in mesh ({@link
   * #EXIT_INTERNAL}) nor a refusal of the input (1). {@code EX_OSERR} of BSD's sysexits.h, whose
   * examples (a fork or a pipe the system would not make) are the system running out of a resource.
   */
  static final int EXIT_RESOURCE = 71;

  /**
   * The {@link OutOfMemoryError} that {@code e} is or was caused by, if any: one thrown on another
   * thread (a model loaded in parallel) reaches the command inside the exception that carried it
   * across, a refusal's included, and is still the JVM out of memory. Not the JVM refusing one
   * array longer than any array may be ({@link #ARRAY_OVER_LIMIT}): no setting gives more, and mesh
   * should have refused what asked for it, so that one is a bug.
   */
  private static java.util.Optional<OutOfMemoryError> ranOutOfMemory(Throwable e) {
    Throwable at = e;
    for (int depth = 0; at != null && depth < 32; depth++, at = at.getCause()) {
      if (at instanceof OutOfMemoryError oom) {
        return String.valueOf(oom.getMessage()).contains(ARRAY_OVER_LIMIT)
            ? java.util.Optional.empty()
            : java.util.Optional.of(oom);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * HotSpot's words for an array asked for beyond the longest the JVM allows, whatever the heap.
   */
  private static final String ARRAY_OVER_LIMIT = "Requested array size exceeds VM limit";

  /**
   * The exit status of a command stopped because a file it had mapped into memory (a model's
   * weights, a journal's snapshot) was cut short under it, by something rewriting the file in place
   * ({@code cp} over it, a download into it): the JVM then reports a fault in an unsafe memory
   * access ({@link InternalError}), which is the file changing, not a bug in mesh ({@link
   * #EXIT_INTERNAL}). {@code EX_IOERR} of BSD's sysexits.h, an error doing I/O on a file.
   */
  static final int EXIT_FILE_CHANGED = 74;

  /** The exit status for a failure that is not a refusal: out of memory, or else a bug. */
  private static int exitCode(Throwable e) {
    return ranOutOfMemory(e).isPresent()
        ? EXIT_RESOURCE
        : org.meshjava.journal.MappedReadFault.in(e) ? EXIT_FILE_CHANGED : EXIT_INTERNAL;
  }

  /** The line for a failure that is not a refusal: out of memory, or else a bug. */
  private static String failure(Throwable e) {
    if (org.meshjava.journal.MappedReadFault.in(e) && ranOutOfMemory(e).isEmpty()) {
      return "a file read through memory mapping was cut short while it was read (a model's"
          + " weights or a snapshot being rewritten in place, by cp or a download, while mesh"
          + " used it), not a bug in mesh: let what rewrites it finish, then start again (copy a"
          + " new file in beside the old one and rename it over the old, so that a running mesh"
          + " keeps reading the old one whole)";
    }
    return ranOutOfMemory(e).map(Mesh::outOfMemory).orElseGet(() -> internalError(e));
  }

  /**
   * The line for the JVM running out of memory: which memory (the JVM's own words) and the setting
   * that gives it more. A {@link StackOverflowError} is not one of these: what mesh reads is
   * bounded in depth (a configuration's nesting, a CBOR item's), so a stack that overflows is a
   * recursion that ran away, a bug.
   */
  static String outOfMemory(OutOfMemoryError e) {
    String what = e.getMessage() == null ? "" : e.getMessage();
    String remedy;
    if (what.contains("native thread")) {
      remedy =
          "the system would not start another thread; raise the limit on processes or threads"
              + " (ulimit -u, a container's pids limit) or stop what else runs";
    } else if (what.contains("irect buffer memory")) {
      remedy = "give the JVM more direct memory with -XX:MaxDirectMemorySize=SIZE";
    } else if (what.contains("Compressed class space")) {
      remedy = "give the JVM more class space with -XX:CompressedClassSpaceSize=SIZE";
    } else if (what.contains("Metaspace")) {
      remedy = "give the JVM more class space with -XX:MaxMetaspaceSize=SIZE";
    } else {
      remedy =
          "this JVM's heap may grow to "
              + Runtime.getRuntime().maxMemory() / (1024 * 1024)
              + " MiB; give it more with -Xmx, or serve a smaller model";
    }
    // A JVM setting, which the launcher takes from the environment; a thread limit is the system's.
    String jvm =
        remedy.startsWith("the system")
            ? ""
            : "; ./mesh passes MESH_JAVA_OPTS to java (MESH_JAVA_OPTS=-Xmx8g ./mesh serve …)";
    return ("out of memory"
            + (what.isEmpty() ? "" : " (" + what + ")")
            + ", a limit of this machine or JVM, not a bug in mesh: "
            + remedy
            + jvm)
        .replaceAll("[\\r\\n]+", " ");
  }

  /**
   * Whether {@code e} is a refusal the user can act on: one of mesh's own typed exceptions (each
   * says in its own words what was refused), a file's {@link IOException}, or an interrupt. An
   * exception of the JDK or a library ({@code NullPointerException}, an {@code
   * IllegalArgumentException} from a record's check that the command should have made itself) is
   * not: it means the command let through something it should have refused or handled.
   */
  static boolean isRefusal(Throwable e) {
    return e instanceof IOException
        || e instanceof java.io.UncheckedIOException
        || e instanceof InterruptedException
        || e.getClass().getName().startsWith("org.meshjava.");
  }

  /**
   * The line for an exception that is not a refusal: marked as a bug, with its type and the frame
   * that threw it, which a report needs and a refusal's words never carry.
   */
  private static String internalError(Throwable e) {
    // The first frame of ours says where; the JDK's own (Objects.requireNonNull) would not.
    String at = "";
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().startsWith("org.meshjava.")) {
        at = " at " + frame;
        break;
      }
    }
    return ("internal error (a bug in mesh; please report it with this line): " + e + at)
        .replaceAll("[\\r\\n]+", " ");
  }

  /**
   * The {@code --name} or {@code --name=value} words that {@code command} was given and has no
   * option for. Taken from what picocli's parse left unmatched, not from the whole command line: an
   * option's value that starts with {@code --} ({@code --subject --x}) is matched, and is not one.
   */
  private static List<String> unknownOptions(CommandLine command) {
    List<String> unknown = new java.util.ArrayList<>();
    for (String a : command.getUnmatchedArguments()) {
      if (a.startsWith("--") && a.length() > 2) {
        unknown.add(a.contains("=") ? a.substring(0, a.indexOf('=')) : a);
      }
    }
    return unknown;
  }

  /**
   * The long options of {@code command} that {@code unknown} are nearest to ({@link NearestKey}):
   * for each, those near enough, every one as near named.
   */
  private static List<String> nearestOptions(CommandLine command, List<String> unknown) {
    java.util.Map<String, String> byKey = new java.util.HashMap<>();
    for (CommandLine.Model.OptionSpec o : command.getCommandSpec().options()) {
      for (String n : o.names()) {
        if (n.startsWith("--")) {
          byKey.put(n.substring(2).replace('-', '_'), n);
        }
      }
    }
    java.util.Set<String> meant = new java.util.LinkedHashSet<>();
    for (String typed : unknown) {
      NearestKey.of(typed.substring(2), byKey.keySet()).forEach(k -> meant.add(byKey.get(k)));
    }
    return List.copyOf(meant);
  }

  /**
   * The launcher's own commands ({@code ./mesh test}, {@code format}, {@code bench}), which the
   * launcher runs itself and so are no subcommands here, but a mistyped one is meant as one.
   */
  private static final List<String> LAUNCHER_COMMANDS = List.of("test", "format", "bench");

  /**
   * Whether the first word {@code command} did not take stands where a subcommand is typed: the
   * command has subcommands and the word is no option.
   */
  private static boolean isCommandWord(
      CommandLine command, CommandLine.UnmatchedArgumentException e) {
    List<String> unmatched = e.getUnmatched();
    return !command.getSubcommands().isEmpty()
        && !unmatched.isEmpty()
        && !unmatched.getFirst().startsWith("-");
  }

  /**
   * The subcommands of {@code command} that the first word it did not take is nearest to ({@link
   * NearestKey}), the launcher's own commands among them at the top; none where that word is an
   * option or the command has no subcommands.
   */
  private static List<String> nearestSubcommands(
      CommandLine command, CommandLine.UnmatchedArgumentException e) {
    if (!isCommandWord(command, e)) {
      return List.of();
    }
    List<String> unmatched = e.getUnmatched();
    java.util.Map<String, String> byKey = new java.util.HashMap<>();
    command.getSubcommands().keySet().forEach(n -> byKey.put(n.replace('-', '_'), n));
    if (command.getParent() == null) {
      LAUNCHER_COMMANDS.forEach(n -> byKey.put(n, n));
    }
    return NearestKey.of(unmatched.getFirst(), byKey.keySet()).stream().map(byKey::get).toList();
  }

  /** {@code text} as a file name, refused if empty. */
  private static String fileName(String text) {
    if (text.isBlank()) {
      throw new CommandLine.TypeConversionException("a file name, not an empty one");
    }
    return text;
  }

  /**
   * {@code text} as the name of a file that is only ever a file (a key, a configuration, a journal,
   * a file to write): {@code -}, which a Unix user types for standard input or output, is refused
   * rather than taken as a file called {@code -} in the current folder.
   */
  private static String namedFile(String text) {
    if (fileName(text).equals(InputFile.STDIN)) {
      throw new CommandLine.TypeConversionException(
          "'-' (standard input or output) is not taken here, only a file; name a file called -"
              + " as ./-");
    }
    return text;
  }

  /** Entry point. */
  public static void main(String[] args) {
    StandardOutput stdout = new StandardOutput();
    PrintWriter out = new PrintWriter(new OutputStreamWriter(stdout, System.out.charset()), true);
    PrintWriter err =
        new PrintWriter(new OutputStreamWriter(System.err, System.err.charset()), true);
    int code = run(out, err, args);
    out.flush();
    String failed = stdout.failure();
    if (failed != null) {
      // A report cut short by a full disk must not exit 0 as if it were whole.
      err.println("mesh: " + failed);
      code = code == 0 ? 1 : code;
    }
    System.exit(code);
  }
}
