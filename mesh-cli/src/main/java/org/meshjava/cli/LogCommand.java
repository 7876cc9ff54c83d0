package org.meshjava.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mesh log}: the steward's transparency log (SPEC.md §65). {@code checkpoint} and {@code
 * prove} fetch from a running server into files; {@code verify} checks them offline, trusting
 * nothing but the steward's did:key.
 */
@Command(
    name = "log",
    description = "Fetch and verify the steward's transparency log: checkpoints and proofs.",
    subcommands = {LogCommand.Fetch.class, LogCommand.Prove.class, LogCommand.Verify.class})
final class LogCommand extends CommandGroup {
  /** What a checkpoint file and a proof file hold, for a refusal to overwrite one. */
  private static final String CHECKPOINT = "a checkpoint";

  private static final String PROOF = "a proof";

  /** The running server {@code checkpoint} and {@code prove} fetch from. */
  static final class Server {
    @Option(
        names = "--server",
        required = true,
        paramLabel = "HOST:PORT|URL",
        description = "The server: host:port or its base URL.")
    String server;

    /**
     * The most of a reply read: a checkpoint or a proof is a few kilobytes, and the server is the
     * party these commands check, so it is not trusted to bound its own reply.
     */
    static final int MAX_REPLY_BYTES = 1 << 20;

    /**
     * The body of a {@code GET} of {@code path} on the server, which must answer 200 with at most
     * {@link #MAX_REPLY_BYTES} bytes.
     */
    String get(String path) throws CliException {
      String base = server.replaceAll("/+$", "").replaceAll("/v1$", "");
      if (!base.contains("://")) {
        base = "http://" + base;
      }
      try (HttpClient http =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
        HttpResponse<InputStream> r =
            http.send(
                HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(30))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        byte[] bytes;
        // Closing the body early abandons the rest of an oversized reply.
        try (InputStream in = r.body()) {
          bytes = in.readNBytes(MAX_REPLY_BYTES + 1);
        }
        if (bytes.length > MAX_REPLY_BYTES) {
          throw new CliException(
              "GET "
                  + path
                  + " answered more than "
                  + MAX_REPLY_BYTES
                  + " bytes; a checkpoint or a proof is a few kilobytes");
        }
        String body = new String(bytes, StandardCharsets.UTF_8);
        if (r.statusCode() != 200) {
          throw new CliException("GET " + path + " answered " + r.statusCode() + ": " + body);
        }
        return body;
      } catch (IOException e) {
        throw new CliException("GET " + base + path + " failed: " + why(e), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException("interrupted", e);
      } catch (IllegalArgumentException e) {
        throw new CliException("not a server URL: " + server, e);
      }
    }
  }

  /**
   * Why a request failed, in words: the JDK's exceptions for a refused connection or an unknown
   * host carry no message, and "failed: null" tells an operator nothing.
   */
  static String why(IOException e) {
    if (e instanceof java.net.http.HttpConnectTimeoutException) {
      return "no connection within 10 s";
    }
    if (e instanceof java.net.http.HttpTimeoutException) {
      return "no answer within 30 s";
    }
    if (e instanceof java.net.ConnectException) {
      return e.getCause() instanceof java.nio.channels.UnresolvedAddressException
          ? "unknown host"
          : "connection refused (is the server running, on that port?)";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  /** Where a fetched checkpoint or proof goes: stdout, or a file that must not exist yet. */
  static final class Output {
    @Option(
        names = {"-o", "--out"},
        paramLabel = "FILE",
        description = "Write it here, not to stdout; a file that exists is refused.")
    @Nullable Path file;

    @Option(
        names = "--force",
        description =
            "With --out: overwrite a file that exists (refused otherwise: a checkpoint or"
                + " proof kept earlier may be the evidence a later check needs).")
    boolean force;

    /** Refuses, before anything is fetched, a file that exists without --force. */
    void check(String kind) throws CliException {
      if (file != null) {
        UserFile.refuseToOverwrite(file, kind, force);
      }
    }

    /**
     * Writes {@code text} to stdout, or to the file whole or not at all and then says so on stdout,
     * as the grant tools do ("wrote FILE: what"): a command that printed nothing would leave an
     * operator to wonder whether anything was fetched.
     *
     * @param what what the file now holds, for that line: {@code "the steward's checkpoint"}
     */
    void write(PrintWriter out, String text, String kind, String what) throws CliException {
      if (file == null) {
        out.print(text);
        out.flush();
        return;
      }
      UserFile.writeOutput(file, text.getBytes(StandardCharsets.UTF_8), kind, force);
      out.println("wrote " + file + ": " + what);
      out.flush();
    }
  }

  static JsonNode json(String text, String what) throws CliException {
    try {
      // Strict, as the grant files are read: a key written twice is not read as its last value.
      JsonNode n = GrantFiles.JSON.readTree(text);
      if (n == null || !n.isObject()) {
        throw new CliException(what + " is not a JSON object");
      }
      return n;
    } catch (IOException e) {
      throw new CliException(what + " is not JSON: " + GrantFiles.why(e), e);
    }
  }

  @Command(
      name = "checkpoint",
      description = "Fetch the steward's latest signed checkpoint (a C2SP signed note).")
  static final class Fetch extends MeshCommand implements Callable<Integer> {
    @Mixin Server server;

    @Mixin Output out;

    @Override
    public Integer call() throws CliException {
      out.check(CHECKPOINT);
      JsonNode answer = json(server.get("/v1/mesh/checkpoint"), "the answer");
      JsonNode checkpoint = answer.path("checkpoint");
      if (!checkpoint.isTextual() || checkpoint.asText().isBlank()) {
        // Some other server's JSON: an empty file would pass for a fetched checkpoint.
        throw new CliException(
            "GET /v1/mesh/checkpoint answered no \"checkpoint\"; is --server a mesh steward?");
      }
      out.write(out(), checkpoint.asText(), CHECKPOINT, "the steward's latest checkpoint");
      return 0;
    }
  }

  @Command(
      name = "prove",
      description =
          "Fetch an inclusion proof (--seq, --envelope-id or --envelope) or a consistency proof"
              + " (--from) as JSON.")
  static final class Prove extends MeshCommand implements Callable<Integer> {
    @Mixin Server server;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    static final class Which {
      @Option(
          names = "--seq",
          paramLabel = "N",
          description = "The receipt's sequence (inclusion proof).")
      Long seq;

      @Option(
          names = "--envelope-id",
          paramLabel = "HEX",
          description = "The receipt's envelope id, usage.energy.envelope_id (inclusion proof).")
      String envelopeId;

      @Option(
          names = "--envelope",
          paramLabel = "FILE",
          description =
              "A file holding the receipt's hex envelope (inclusion proof); - reads standard"
                  + " input.")
      InputFile envelope;

      @Option(
          names = "--from",
          paramLabel = "N",
          description = "The older tree size (consistency proof).")
      Long from;
    }

    @Option(
        names = "--size",
        paramLabel = "N",
        description = "The tree size to prove against (default: latest).")
    Long size;

    @Mixin Output out;

    @Override
    public Integer call() throws CliException {
      out.check(PROOF);
      nonNegative("--seq", which.seq);
      nonNegative("--from", which.from);
      nonNegative("--size", size);
      String sized = size == null ? "" : "&size=" + size;
      String path;
      String what = which.from == null ? "an inclusion proof" : "a consistency proof";
      if (which.seq != null) {
        path = "/v1/mesh/proof/inclusion?seq=" + which.seq + sized;
      } else if (which.envelopeId != null) {
        ContentId id;
        try {
          id = ContentId.fromHex(which.envelopeId.strip());
        } catch (IllegalArgumentException e) {
          throw new CliException("--envelope-id is not a content id: " + e.getMessage(), e);
        }
        path = "/v1/mesh/proof/inclusion?envelope_id=" + id.hex() + sized;
      } else if (which.envelope != null) {
        path =
            "/v1/mesh/proof/inclusion?envelope_id="
                + Verify.envelopeId(which.envelope).hex()
                + sized;
      } else {
        path =
            "/v1/mesh/proof/consistency?from=" + which.from + (size == null ? "" : "&to=" + size);
      }
      out.write(out(), server.get(path) + "\n", PROOF, what);
      return 0;
    }
  }

  /** Refuses a negative sequence or tree size by its flag, before asking the server. */
  private static void nonNegative(String flag, @Nullable Long value) throws CliException {
    if (value != null) {
      GrantFiles.nonNegative(flag, value);
    }
  }

  @Command(
      name = "verify",
      description =
          "Offline: verify a checkpoint's signature by the steward, and a receipt's"
              + " inclusion in it (--envelope) or its consistency with an older checkpoint (--old).")
  static final class Verify extends MeshCommand implements Callable<Integer> {
    @Option(
        names = "--steward",
        required = true,
        paramLabel = "DID",
        description = "The steward's did:key.")
    String steward;

    @Option(
        names = "--checkpoint",
        required = true,
        paramLabel = "FILE",
        description = "The signed checkpoint file; - reads standard input.")
    InputFile checkpoint;

    @Option(
        names = "--proof",
        paramLabel = "FILE",
        description = "The proof file `mesh log prove` wrote; - reads standard input.")
    InputFile proof;

    @ArgGroup(exclusive = true)
    What what;

    static final class What {
      @Option(
          names = "--envelope",
          paramLabel = "FILE",
          description = "A file holding the receipt's hex envelope; - reads standard input.")
      InputFile envelope;

      @Option(
          names = "--old",
          paramLabel = "FILE",
          description = "An older checkpoint file of the same steward; - reads standard input.")
      InputFile old;
    }

    @Override
    public Integer call() throws CliException {
      PrintWriter out = out();
      try {
        Checkpoint head = open(checkpoint);
        if (what == null) {
          out.println(
              "checkpoint verified: "
                  + head.origin()
                  + " size "
                  + head.size()
                  + " root "
                  + head.root().base64());
          return 0;
        }
        if (proof == null) {
          throw new CliException("--proof is required with --envelope or --old");
        }
        JsonNode p = json(UserFile.readText(proof, "proof file"), "proof file " + proof);
        List<TreeHash> path = hashes(p, proof);
        if (what.envelope != null) {
          ContentId id = envelopeId(what.envelope);
          long index = integer(p, "leaf_index", proof);
          long size = integer(p, "tree_size", proof);
          if (size != head.size()) {
            throw new CliException(
                "the proof is for size " + size + ", the checkpoint is " + head.size());
          }
          new InclusionProof(index, size, path).verify(InclusionProof.leafHash(id), head.root());
          out.println(
              "included: envelope "
                  + id
                  + " is leaf "
                  + index
                  + " of the "
                  + size
                  + "-receipt log "
                  + head.origin());
        } else {
          Checkpoint older = open(what.old);
          long from = integer(p, "from", proof);
          long to = integer(p, "to", proof);
          if (from != older.size() || to != head.size()) {
            throw new CliException(
                "the proof is from "
                    + from
                    + " to "
                    + to
                    + ", the checkpoints are "
                    + older.size()
                    + " and "
                    + head.size());
          }
          new ConsistencyProof(from, to, path).verify(older.root(), head.root());
          out.println("consistent: the log of " + to + " receipts extends the one of " + from);
        }
        return 0;
      } catch (LogException e) {
        err().println("mesh log verify: " + e.getMessage());
        return 1;
      } catch (IllegalArgumentException e) {
        err().println("mesh log verify: malformed proof in " + proof + ": " + e.getMessage());
        return 1;
      }
    }

    private Checkpoint open(InputFile file) throws CliException, LogException {
      DidKey did;
      try {
        did = DidKey.parse(steward.strip());
      } catch (DidKeyException e) {
        throw new CliException("--steward is not a did:key: " + e.getMessage(), e);
      }
      var key = Checkpoint.logKey(did);
      String text = UserFile.readText(file, "checkpoint file");
      Optional<String> other = FileKind.anyOf(text);
      if (other.isPresent()) {
        throw new CliException("checkpoint file " + file + " is not a checkpoint: " + other.get());
      }
      try {
        return Checkpoint.open(SignedNote.parse(text), key);
      } catch (LogException e) {
        // --checkpoint or --old: the reason alone does not say which file it is about.
        throw new CliException("checkpoint file " + file + ": " + e.getMessage(), e);
      }
    }

    static ContentId envelopeId(InputFile file) throws CliException {
      String hex = UserFile.readText(file, "envelope file").strip();
      if (hex.isEmpty()) {
        // Zero bytes are not an envelope, though they have an id to look up and prove.
        throw new CliException(file + " does not hold a hex envelope (it is empty)");
      }
      // A key file is hex too, and has an id the server would only answer 404 for: name it.
      Optional<String> other = FileKind.otherThan(FileKind.ENVELOPES, hex);
      if (other.isPresent()) {
        throw new CliException(file + " does not hold a hex envelope: " + other.get());
      }
      try {
        return Envelope.fromHex(hex).id();
      } catch (IllegalArgumentException e) {
        throw new CliException(file + " does not hold a hex envelope: it is " + e.getMessage(), e);
      }
    }

    /**
     * The proof's {@code field} as the integer it is written as. Jackson's {@code asLong} would
     * wrap a number past the 64-bit range, cut a fraction and parse a string, so a proof naming
     * leaf 2^64 would be checked as leaf 0 (RFC 9162 §2.1.3.2 fails an index at or past the size).
     */
    private static long integer(JsonNode p, String field, InputFile file) throws CliException {
      JsonNode n = p.get(field);
      if (n == null || !n.isIntegralNumber() || !n.canConvertToLong()) {
        throw new CliException(
            "proof file "
                + file
                + ": '"
                + field
                + "' must be an integer in the 64-bit range, not "
                + (n == null ? "missing" : n.toString()));
      }
      return n.longValue();
    }

    private static List<TreeHash> hashes(JsonNode p, InputFile file) throws CliException {
      List<TreeHash> out = new ArrayList<>();
      JsonNode path = p.path("path");
      if (!path.isArray()) {
        throw new CliException("proof file " + file + " has no path array");
      }
      for (JsonNode h : path) {
        // Java's decoder takes a missing '=' and ignores the unused low bits of the last digit, so
        // several texts read as one hash; a proof is read strictly, as its numbers are: only the
        // one text the steward writes (SPEC 65, Endpoints) is a hash.
        TreeHash hash = null;
        try {
          hash = h.isTextual() ? TreeHash.ofBase64(h.textValue()) : null;
        } catch (IllegalArgumentException e) {
          // refused below, as every other text that is not a hash
        }
        if (hash == null) {
          throw new CliException(
              "a hash in proof file "
                  + file
                  + " is not the base64 of 32 bytes as the steward writes it (standard alphabet,"
                  + " '=' padding, unused bits zero): "
                  + h);
        }
        out.add(hash);
      }
      return out;
    }
  }
}
