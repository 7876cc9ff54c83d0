package org.meshjava.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.onnx.OnnxDecisionEngine;
import org.meshjava.engine.onnx.OnnxEngineException;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.openai.EnergyUsage;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.router.AdmissionHint;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import picocli.CommandLine.Command;

/**
 * {@code mesh demo}: a steward on embedded defaults (a fresh key, three reference backends at
 * different fidelities and costs, the MiniLM decision engine on a real model, the honest estimator
 * meter, a journal in a temporary directory) serves two generations, two typed decisions (one on
 * MiniLM), a granted generation and one request no backend may take, prints each route and receipt
 * as readable JSON, verifies the chain and the journal, and replays one receipt.
 */
@Command(
    name = "demo",
    description = "Serve a few requests on embedded defaults and print each route and receipt.")
final class DemoCommand extends MeshCommand implements Callable<Integer> {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Override
  public Integer call() throws Exception {
    // A stop by signal (Ctrl-C while MiniLM loads or a request is served) runs no finally: the
    // temporary folder and its journal, part written, stayed behind, and nothing was said.
    DemoStop stop = new DemoStop(DemoStop.RUNTIME, System.err);
    try {
      Path dir = stop.make(() -> Files.createTempDirectory("mesh-demo"));
      Path journalFile = dir.resolve("steward.journal");
      try (OnnxDecisionEngine minilm = unlessStopped(ServeCommand::miniLm);
          Steward steward = steward(journalFile, minilm, stop)) {
        int code = demo(out(), steward, journalFile);
        stop.printed();
        return code;
      }
    } catch (DemoStop.StoppedException stopped) {
      // The stop's hook says in its line what became of the folder (stop.refusedByStop: even where
      // this thread's end removes it first); this thread's own line would read as a failure of the
      // demo as the JVM exits.
      stop.refusedByStop();
      return 1;
    } finally {
      // Also where no folder could be made (a temporary directory that is missing or full): the
      // hook left in place said "stopped before it ended" under the error as the JVM exited.
      stop.end();
    }
  }

  /** Loads MiniLM; a seam for tests. */
  @FunctionalInterface
  interface Loading {
    OnnxDecisionEngine load() throws CliException;
  }

  /**
   * MiniLM, loaded by {@code loading}; where a stop by signal came while it loaded, the demo's stop
   * instead. The engine holds the process's exit back while ONNX Runtime builds its session (a
   * process that ended under that native call crashed), and its loader, run on after the signal, is
   * then refused "Shutdown in progress": the stop's doing, which the hook's line reports, not a
   * failure of the model to say as the process ends.
   *
   * @throws DemoStop.StoppedException where the process is stopping
   */
  static OnnxDecisionEngine unlessStopped(Loading loading) throws CliException {
    try {
      return loading.load();
    } catch (CliException e) {
      if (e.getCause() instanceof OnnxEngineException o
          && o.reason() == OnnxEngineException.Reason.STOPPING) {
        throw new DemoStop.StoppedException();
      }
      throw e;
    }
  }

  /**
   * The demo's steward: an ephemeral key, the journal, {@code mesh serve}'s three reference
   * backends (each with the engines' default concurrency, as a sequential demo needs no other) and
   * MiniLM. The journal, then the steward that owns it, are opened through {@code stop}, which
   * closes them before a stop by signal removes their folder, and closes the journal where the
   * steward's build fails.
   */
  private static Steward steward(Path journalFile, OnnxDecisionEngine minilm, DemoStop stop)
      throws Exception {
    FileJournal journal = stop.open(() -> FileJournal.open(journalFile));
    return stop.open(
        () -> {
          Steward.Builder b = Steward.ephemeral().journal(journal);
          ServeCommand.referenceBackends(ServeConcurrency.cpuDefault()).forEach(b::backend);
          return b.backend(minilm).build();
        });
  }

  private static int demo(PrintWriter out, Steward steward, Path journalFile) throws Exception {
    out.println("steward " + steward.identity());
    out.println("journal " + journalFile + " (deleted when the demo ends)");
    steward
        .meterDiscovery()
        .ifPresent(
            d -> {
              out.println(
                  "meter: "
                      + steward.meter().name()
                      + (d.hardwareGraded()
                          ? " (live hardware counters)"
                          : " (no live counters here; figures are Estimator)"));
              d.counters()
                  .forEach(
                      c ->
                          out.println(
                              "  counter "
                                  + c.counter()
                                  + ": "
                                  + c.state()
                                  + c.issue().map(i -> " (" + i + ")").orElse("")
                                  + " "
                                  + c.detail()));
            });
    out.println(
        "backends: tiny (F1, 40 uJ/token), reference (F2, 100 uJ/token), frontier (F4, 900 uJ/token),"
            + " minilm (F2 decisions on all-MiniLM-L6-v2 via ONNX Runtime, 20 uJ/token + 300 uJ/option)");
    out.println(
        "note: tiny, reference and frontier are weights-free reference engines: the tokens they"
            + " generate and the probabilities they answer with are deterministic placeholders, not a"
            + " model's work; minilm answers with a real model.");
    out.println();

    List<Envelope> envelopes = new ArrayList<>();
    ServeResult first =
        java.util.Objects.requireNonNull(
            serve(
                out,
                steward,
                envelopes,
                "a cheap generation: floor F1",
                "Summarise these meeting notes in one line.",
                Fidelity.F1,
                20_000,
                null));
    serve(
        out,
        steward,
        envelopes,
        "a demanding generation: floor F3",
        "Draft a careful answer to the auditor's question.",
        Fidelity.F3,
        200_000,
        null);
    decide(
        out,
        steward,
        envelopes,
        "a typed decision: 2 questions over 6 options, floor F1",
        new DecisionPrompt(
            List.of(
                new DecisionQuestion.Proposition("Is this invoice a duplicate?"),
                new DecisionQuestion.Choice(
                    "Which team owns it?",
                    List.of("finance", "operations", "legal", "procurement"))),
            PromptText.of("Invoice 4471 from Acme Ltd: EUR 1,200, same amount and date as 4398.")),
        Fidelity.F1,
        20_000);
    decide(
        out,
        steward,
        envelopes,
        "a typed decision on a real model: MiniLM, 2 questions over 6 options, floor F2",
        new DecisionPrompt(
            List.of(
                new DecisionQuestion.Choice(
                    "Which team should handle this message?",
                    List.of("billing and refunds", "technical support", "sales")),
                new DecisionQuestion.Score(
                    "How upset is the customer?", List.of("calm", "annoyed", "furious"))),
            PromptText.of(
                "I was charged twice for my subscription this month and I want my money back.")),
        Fidelity.F2,
        50_000);

    // A caller issues the steward a grant and presents it for one request (§2.1).
    SigningKey caller = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain grant =
        Jcp.issueRoot(
            caller, steward.identity(), 2_000_000, now.minusSeconds(60), now.plusSeconds(3600));
    out.println(
        "caller "
            + Jcp.identity(caller)
            + " issued grant "
            + grant.leaf().id()
            + " (2000000 uJ) to the steward");
    serve(
        out,
        steward,
        envelopes,
        "a granted generation: the caller presents its grant",
        "Translate the contract summary into French.",
        Fidelity.F1,
        50_000,
        new Granted(caller, grant));
    out.println(
        "grant " + grant.leaf().id() + " has " + steward.spend().remainingUj(grant) + " uJ left");
    out.println();

    serve(
        out,
        steward,
        envelopes,
        "a request no backend can take: floor F4 under 1000 uJ",
        "Write a novel.",
        Fidelity.F4,
        1_000,
        null);

    ReceiptChain.verifyFromGenesis(envelopes);
    out.println(
        "chain verified: "
            + envelopes.size()
            + " receipts from genesis, head at sequence "
            + (steward.head().nextSequence() - 1));
    JournalFile.Contents journal = JournalFile.read(journalFile);
    out.println(
        "journal verified: "
            + journal.records().size()
            + " records in one chain (a seal per receipt; the grant chain, a decision and a debit for the granted serve)");
    byte[] firstPrompt =
        "Summarise these meeting notes in one line.".getBytes(StandardCharsets.UTF_8);
    TokenSequence firstPayload = ByteTokenizer.INSTANCE.encode(firstPrompt);
    ServeRequest firstRequest =
        ServeRequest.generation(
            ContentId.ofBytes(firstPrompt),
            firstPayload.size(),
            new ServeBounds(32, Fidelity.F1, 20_000));
    out.println(
        "replay of receipt "
            + first.receipt().sequence()
            + ": "
            + DemoReplay.replay(steward, first, firstRequest, firstPayload));
    return 0;
  }

  /**
   * Serves a typed decision asked as prompt text (§3.6): the steward routes it, the routed engine
   * lays out its own payload for the questions and the state, and the answers, one probability per
   * option, come back beside the receipt.
   */
  private static void decide(
      PrintWriter out,
      Steward steward,
      List<Envelope> envelopes,
      String title,
      DecisionPrompt prompt,
      Fidelity floor,
      long ceilingUj)
      throws Exception {
    ServeRequest request = ServeRequest.decision(prompt, floor, ceilingUj);
    out.println("== " + title);
    ObjectNode doc = JSON.createObjectNode();
    doc.put("request_id", request.id().hex());
    doc.put("state", new String(prompt.state().bytes(), StandardCharsets.UTF_8));
    ServeResult result = steward.serve(request, prompt);
    doc.set("route", EnergyUsage.candidates(result.route().candidates()));
    doc.put("chosen", result.route().chosen().name());
    ArrayNode answers = doc.putArray("answers");
    for (int q = 0; q < prompt.questions().size(); q++) {
      DecisionQuestion question = prompt.questions().get(q);
      ObjectNode a = answers.addObject();
      a.put("question", question.text());
      ObjectNode probabilities = a.putObject("probabilities");
      for (int o = 0; o < question.optionCount(); o++) {
        probabilities.put(
            question.options().get(o),
            Math.round(result.answers().get(q).probability(o) * 10_000) / 10_000.0);
      }
    }
    doc.set("receipt", ReceiptJson.of(result.receipt()));
    doc.put("envelope_id", result.envelope().id().hex());
    envelopes.add(result.envelope());
    out.println(JSON.writeValueAsString(doc));
    out.println();
  }

  /** A caller's key and the grant it presents. */
  private record Granted(SigningKey caller, GrantChain chain) {}

  private static @Nullable ServeResult serve(
      PrintWriter out,
      Steward steward,
      List<Envelope> envelopes,
      String title,
      String prompt,
      Fidelity floor,
      long ceilingUj,
      @Nullable Granted granted)
      throws Exception {
    byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
    TokenSequence payload = ByteTokenizer.INSTANCE.encode(bytes);
    ServeRequest request =
        ServeRequest.generation(
            ContentId.ofBytes(bytes), payload.size(), new ServeBounds(32, floor, ceilingUj));
    out.println("== " + title);
    ObjectNode doc = JSON.createObjectNode();
    doc.put("request_id", request.id().hex());
    ServeResult result = null;
    try {
      if (granted != null) {
        Presentation p = Jcp.present(granted.caller(), granted.chain(), request);
        doc.put("grant_id", p.grantId().hex());
        result = steward.serve(request, payload, p);
      } else {
        result = steward.serve(request, payload);
      }
      doc.set("route", EnergyUsage.candidates(result.route().candidates()));
      doc.put("chosen", result.route().chosen().name());
      doc.set("receipt", ReceiptJson.of(result.receipt()));
      doc.put("envelope_id", result.envelope().id().hex());
      doc.put("envelope_bytes", result.envelope().length());
      envelopes.add(result.envelope());
    } catch (ServeException e) {
      doc.put("refused", e.reason().name());
      doc.put("reason", e.getMessage());
      doc.set("route", EnergyUsage.candidates(e.candidates()));
      if (e.reason() == ServeException.Reason.NO_ADMISSIBLE_BACKEND) {
        doc.put("hint", AdmissionHint.of(e.candidates(), floor, ceilingUj));
      }
      doc.put("sealed", "nothing; the chain did not advance");
    }
    out.println(JSON.writeValueAsString(doc));
    out.println();
    return result;
  }
}
