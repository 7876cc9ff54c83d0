package org.meshjava.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.GrantSuspension;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalFile;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalReplay;
import org.meshjava.journal.Unresolved;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mesh journal inspect|verify}: read a steward's decision journal (§2.2) without locking or
 * changing it.
 *
 * <p>Both check the record chain and then replay it the way a restarting steward does: through a
 * gate held by the steward, every authorisation decided again at its recorded time. The journal
 * does not record the steward's identity, but every grant it decided names the steward as its
 * leaf's subject, so the holder is read from the first authorisation; {@code --steward} or {@code
 * --key} names it instead. Spend per grant is what the replayed gate holds: debits plus the
 * ceilings of unresolved serves.
 */
@Command(
    name = "journal",
    mixinStandardHelpOptions = true,
    description = "Inspect or verify a steward's decision journal; lift a suspension of grants.",
    subcommands = {
      JournalCommand.Inspect.class,
      JournalCommand.Verify.class,
      JournalCommand.ResumeGrants.class
    })
final class JournalCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Options shared by both subcommands. */
  abstract static class Common {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The journal file.")
    Path file;

    @Option(
        names = "--steward",
        paramLabel = "DID",
        description = "The steward's did:key (default: the subject of the first decided grant).")
    String steward;

    @Option(
        names = "--key",
        paramLabel = "FILE",
        description = "The steward's key file, to name it.")
    Path key;

    @Option(
        names = "--progress-every",
        defaultValue = "100000",
        paramLabel = "N",
        description =
            "Report progress on stderr every N records (default ${DEFAULT-VALUE}; 0: never).")
    long progressEvery;

    JournalFile.Contents read() throws CliException {
      if (!Files.isRegularFile(file)) {
        throw new CliException("no journal at " + file);
      }
      PrintWriter err = spec.commandLine().getErr();
      LongConsumer progress =
          n -> {
            if (progressEvery > 0 && n % progressEvery == 0) {
              err.println("checked " + Counted.of(n, "record") + "…");
            }
          };
      try {
        return JournalFile.read(file, progress);
      } catch (JournalException e) {
        throw new CliException(file + ": " + e.getMessage(), e);
      }
    }

    Optional<DidKey> holder(List<JournalRecord> records) throws CliException {
      if (steward != null) {
        return Optional.of(GrantFiles.did(steward));
      }
      if (key != null) {
        return Optional.of(org.meshjava.jcp.Jcp.identity(KeyFile.read(key)));
      }
      for (JournalRecord r : records) {
        if (r.entry() instanceof JournalEntry.Authorised a) {
          return Optional.of(a.presentation().chain().leaf().grant().subject());
        }
      }
      return Optional.empty();
    }

    /** Replays through a gate held by the steward; returns the gate and result. */
    Replayed replay(List<JournalRecord> records) throws CliException {
      DidKey h =
          holder(records).orElse(org.meshjava.jcp.Jcp.identity(org.meshjava.jcp.Jcp.newKey()));
      Gate gate = Gate.create(h, SpendLedger.inMemory(), Revocations.none());
      try {
        return new Replayed(gate, JournalReplay.replay(records, gate));
      } catch (JournalException e) {
        throw new CliException(file + ": " + e.getMessage(), e);
      }
    }
  }

  record Replayed(Gate gate, JournalReplay.Result result) {}

  @Command(
      name = "verify",
      mixinStandardHelpOptions = true,
      description = "Check the record chain and replay it; exit 1 naming the first bad record.")
  static final class Verify extends Common implements Callable<Integer> {
    @Override
    public Integer call() throws CliException {
      JournalFile.Contents c = read();
      Replayed r = replay(c.records());
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "journal "
              + file
              + ": "
              + Counted.of(c.records().size(), "record")
              + (c.records().size() == 1 ? " forms" : " form")
              + " one chain and replay; "
              + Counted.of(r.result().authorisations(), "grant decision")
              + ", "
              + Counted.of(r.result().receipts().size(), "receipt")
              + ", "
              + r.result().unresolved().size()
              + " unresolved, "
              + Counted.of(r.result().revocations(), "revocation")
              + r.result().suspension().map(x -> "; grants are suspended (" + x + ")").orElse("")
              + (c.tornTail() > 0
                  ? "; a final line of "
                      + c.tornTail()
                      + " bytes without a newline is an append cut short and will be dropped"
                  : ""));
      return 0;
    }
  }

  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      description = "Print every record, the spend per grant and the unresolved serves.")
  static final class Inspect extends Common implements Callable<Integer> {
    @Override
    public Integer call() throws CliException {
      JournalFile.Contents c = read();
      PrintWriter out = spec.commandLine().getOut();
      Map<Long, GrantChain> chains = new LinkedHashMap<>();
      for (JournalRecord r : c.records()) {
        out.println(line(r, chains));
      }
      Replayed replayed = replay(c.records());
      Map<GrantId, GrantChain> grants = new LinkedHashMap<>();
      chains.values().forEach(ch -> grants.putIfAbsent(ch.leaf().id(), ch));
      out.println();
      out.println("spend per grant (steward " + replayed.gate().holder() + "):");
      if (grants.isEmpty()) {
        out.println("  (no granted serves)");
      }
      for (GrantChain ch : grants.values()) {
        long budget = ch.links().stream().mapToLong(l -> l.grant().budgetUj()).min().orElse(0);
        long left = replayed.gate().remainingUj(ch);
        out.println(
            "  grant "
                + ch.leaf().id()
                + ": spent "
                + (budget - left)
                + " uJ of "
                + budget
                + ", "
                + left
                + " left");
      }
      List<Unresolved> unresolved = replayed.result().unresolved();
      out.println("unresolved serves: " + unresolved.size());
      unresolved.forEach(u -> out.println("  " + u));
      return 0;
    }

    private static String line(JournalRecord r, Map<Long, GrantChain> chains) {
      String head = "#" + r.seq() + " ";
      return switch (r.entry()) {
        case JournalEntry.Chain c ->
            head
                + "Chain "
                + c.id()
                + " leaf grant "
                + c.chain().leaf().id()
                + " ("
                + c.chain().links().size()
                + " links)";
        case JournalEntry.Authorised a -> {
          Presentation p = a.presentation();
          chains.put(r.seq(), p.chain());
          yield head
              + "Authorised request "
              + a.request().id()
              + " backend "
              + a.backend()
              + " grant "
              + p.grantId()
              + " caller "
              + p.caller()
              + " model "
              + a.model().map(Object::toString).orElse("-")
              + " at "
              + a.decidedAt();
        }
        case JournalEntry.Debited d ->
            head
                + "Debited authorisation #"
                + d.authorised()
                + " "
                + d.debitedUj()
                + " uJ ("
                + d.energy().provenance()
                + ")"
                + d.breach().map(b -> " breach " + b).orElse("");
        case JournalEntry.Sealed s ->
            head
                + "Sealed receipt "
                + s.sequence()
                + " envelope "
                + s.envelopeId()
                + (s.authorised().isPresent() ? " granted #" + s.authorised().getAsLong() : "");
        case JournalEntry.Suspended x ->
            head
                + "Suspended grants: shown receipt "
                + x.sequence()
                + " envelope "
                + x.envelope().id()
                + ", which the journal did not hold";
        case JournalEntry.Resumed x -> head + "Resumed grants: " + x.note();
        case JournalEntry.Revoked x ->
            head
                + "Revoked grant "
                + x.revocation().grantId()
                + " from "
                + x.revocation().from()
                + " by "
                + x.revocation().revoker();
        case JournalEntry.Checkpoint x ->
            head
                + "Checkpoint "
                + x.note().text().replace('\n', ' ').strip()
                + " ("
                + x.note().signatures().size()
                + " signatures)";
      };
    }
  }

  @Command(
      name = "resume-grants",
      mixinStandardHelpOptions = true,
      description =
          "After restoring a cut journal, lift the suspension of grants: appends a"
              + " journalled Resumed record. Run with the steward stopped (it takes the journal's lock).")
  static final class ResumeGrants implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The journal file.")
    Path file;

    @Option(
        names = "--note",
        required = true,
        paramLabel = "TEXT",
        description =
            "What was done, recorded in the journal (e.g. \"restored from the 02:00 backup\").")
    String note;

    @Override
    public Integer call() throws CliException {
      if (!Files.isRegularFile(file)) {
        throw new CliException("no journal at " + file);
      }
      try (FileJournal journal = FileJournal.open(file)) {
        Optional<JournalReplay.Suspension> inForce = GrantSuspension.inForce(journal.recovered());
        if (inForce.isEmpty()) {
          throw new CliException("journal " + file + ": grants are not suspended; nothing written");
        }
        JournalRecord r = GrantSuspension.lift(journal, note).orElseThrow();
        spec.commandLine()
            .getOut()
            .println(
                "journal "
                    + file
                    + ": record "
                    + r.seq()
                    + " lifts the suspension of "
                    + inForce.get().record()
                    + "; grants are honoured at the"
                    + " next start");
        return 0;
      } catch (JournalException e) {
        throw new CliException(file + ": " + e.getMessage(), e);
      } catch (IllegalArgumentException e) {
        throw new CliException("--note: " + e.getMessage(), e);
      }
    }
  }
}
