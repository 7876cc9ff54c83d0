package org.meshjava.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.core.weights.WeightsDigest;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.SealedReceipt;

/**
 * Checks an implementation against published vectors and reports every check, passed or failed,
 * rather than stopping at the first.
 *
 * <p>Usage: {@code ConformanceRunner [dir]}, default {@code conformance/v1}; exits 1 if any check
 * fails.
 */
public final class ConformanceRunner {
  private static final HexFormat HEX = HexFormat.of();

  private ConformanceRunner() {}

  /**
   * One check's result.
   *
   * @param vector the vector's folder name
   * @param check what was checked
   * @param passed whether it held
   * @param detail what differed, when it failed
   */
  public record Check(String vector, String check, boolean passed, String detail) {
    @Override
    public String toString() {
      return (passed ? "PASS " : "FAIL ") + vector + ": " + check + (passed ? "" : " -- " + detail);
    }
  }

  /** Runs every vector folder under {@code dir} against {@code subject}. */
  public static List<Check> run(Path dir, ConformanceSubject subject) throws IOException {
    List<Check> checks = new ArrayList<>();
    try (var folders = Files.list(dir)) {
      for (Path folder : folders.filter(Files::isDirectory).sorted().toList()) {
        if (Files.exists(folder.resolve("meta.json"))) {
          checks.addAll(runOne(folder, subject));
        }
      }
    }
    return checks;
  }

  /** Runs one vector folder against {@code subject}. */
  public static List<Check> runOne(Path folder, ConformanceSubject subject) throws IOException {
    String name = folder.getFileName().toString();
    JsonNode meta = new ObjectMapper().readTree(folder.resolve("meta.json").toFile());
    byte[] signedCore = readHex(folder.resolve("signed_core.hex"));
    byte[] envelope = readHex(folder.resolve("envelope.hex"));
    JsonNode expected = meta.path("expected");
    List<Check> out = new ArrayList<>();
    ReferenceInputs in;
    try {
      in = ReferenceInputs.fromJson(meta.path("inputs"));
    } catch (RuntimeException e) {
      out.add(new Check(name, "meta.json inputs parse", false, String.valueOf(e.getMessage())));
      return out;
    }
    check(
        out,
        name,
        "request encodes to request_canonical_hex",
        () ->
            same(
                HEX.formatHex(in.request().encode()),
                expected.path("request_canonical_hex").asText()));
    check(
        out,
        name,
        "request_id is BLAKE3 of the canonical request",
        () ->
            same(
                ContentId.ofBytes(HEX.parseHex(expected.path("request_canonical_hex").asText()))
                    .hex(),
                expected.path("request_id").asText()));
    check(
        out,
        name,
        "steward did:key derives from the seed",
        () ->
            same(
                DidKey.of(SigningKey.fromSeed(in.stewardSeed()).verificationKey()).value(),
                expected.path("steward_did_key").asText()));
    check(
        out,
        name,
        "receipt JSON encodes to signed_core.hex",
        () -> sameBytes(subject.encodeSignedCore(expected.path("receipt")), signedCore));
    check(
        out,
        name,
        "signed core seals to envelope.hex with the seed",
        () -> sameBytes(subject.seal(signedCore, in.stewardSeed()), envelope));
    check(
        out,
        name,
        "envelope verifies and carries the signed core",
        () -> {
          SealedReceipt sealed = Jcr1.open(envelope);
          if (!Arrays.equals(sealed.receipt().encodeSignedCore(), signedCore)) {
            return "payload differs from signed_core.hex";
          }
          return same(sealed.receipt().requestId().hex(), expected.path("request_id").asText());
        });
    check(
        out,
        name,
        "envelope content id",
        () -> same(Envelope.of(envelope).id().hex(), expected.path("envelope_id").asText()));
    check(
        out,
        name,
        "output commitment opens on the disclosed output",
        () -> {
          MeshReceipt r = Jcr1.open(envelope).receipt();
          if (r.isDecision()) {
            return r.outputCommitment().isEmpty() && !expected.has("opening_hex")
                ? null
                : "a decision must carry no commitment and no opening";
          }
          JsonNode ids = expected.path("output_tokens");
          int[] tokens = new int[ids.size()];
          for (int i = 0; i < tokens.length; i++) {
            tokens[i] = (int) ids.get(i).asLong();
          }
          ContentId payload = OutputCommitment.payloadDigest(in.prompt());
          String p = same(payload.hex(), expected.path("payload_digest").asText());
          if (p != null) {
            return p;
          }
          ContentId c =
              OutputCommitment.commit(
                  Opening.of(HEX.parseHex(expected.path("opening_hex").asText())),
                  r.requestId(),
                  payload,
                  TokenSequence.of(tokens));
          return same(c.hex(), r.outputCommitment().map(ContentId::hex).orElse("(absent)"));
        });
    if (in.weights().isPresent()) {
      ReferenceInputs.BoundWeights w = in.weights().get();
      check(
          out,
          name,
          "weights digest recomputes from the published model files",
          () -> {
            WeightsDigest d = ModelDirectory.digest(folder.resolve(w.modelDir()));
            String p = same(d.digest().hex(), w.binding().digest().hex());
            if (p != null) {
              return p;
            }
            p = same(HEX.formatHex(d.encode()), expected.path("weights_canonical_hex").asText());
            if (p != null) {
              return p;
            }
            return same(
                Jcr1.open(envelope)
                    .receipt()
                    .weights()
                    .map(b -> b.digest().hex())
                    .orElse("(absent)"),
                d.digest().hex());
          });
    }
    check(
        out,
        name,
        "the full reference serve reproduces envelope.hex",
        () -> {
          byte[] served = subject.serve(in);
          // No answer is never a pass: a subject without a reference engine fails this one check.
          return served == null
              ? "no answer: the subject does not serve"
              : sameBytes(served, envelope);
        });
    return out;
  }

  private static void check(List<Check> out, String vector, String what, Callable<String> body) {
    try {
      String failure = body.call();
      out.add(new Check(vector, what, failure == null, failure));
    } catch (Exception e) {
      out.add(new Check(vector, what, false, e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  private static @Nullable String same(String actual, String expected) {
    return actual.equals(expected) ? null : "expected " + expected + " but got " + actual;
  }

  private static @Nullable String sameBytes(byte[] actual, byte[] expected) {
    if (Arrays.equals(actual, expected)) {
      return null;
    }
    int i = Arrays.mismatch(actual, expected);
    return "bytes differ at offset "
        + i
        + " (lengths "
        + actual.length
        + " vs "
        + expected.length
        + ")";
  }

  private static byte[] readHex(Path file) throws IOException {
    return HEX.parseHex(Files.readString(file, StandardCharsets.US_ASCII).strip());
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "conformance/v1");
    List<Check> checks = run(dir, new MeshJavaSubject());
    checks.forEach(System.out::println);
    long failed = checks.stream().filter(c -> !c.passed()).count();
    System.out.println((checks.size() - failed) + " passed, " + failed + " failed");
    System.exit(failed == 0 && !checks.isEmpty() ? 0 : 1);
  }
}
