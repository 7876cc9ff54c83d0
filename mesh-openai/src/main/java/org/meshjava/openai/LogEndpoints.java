package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.WitnessAnswer;

/**
 * The transparency log over HTTP (SPEC.md §65): the latest signed checkpoint, inclusion and
 * consistency proofs, and a witness's cosignature. Every answer is JSON; hashes are standard
 * base64, as in the checkpoint itself.
 */
final class LogEndpoints {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final Steward steward;

  LogEndpoints(Steward steward) {
    this.steward = steward;
  }

  /** {@code GET /v1/mesh/checkpoint}: signs a new checkpoint first if the log grew. */
  Reply checkpoint() throws ServeException, LogException {
    if (!steward.keepsLog()) {
      return refusal(
          new LogException(LogException.Reason.NOT_KEPT, "this steward keeps no transparency log"),
          null);
    }
    Optional<SignedNote> note = steward.checkpoint();
    if (note.isEmpty()) {
      return ErrorReply.invalid(
          404, "empty_log", "the log holds no receipt yet, so there is no checkpoint");
    }
    return new Reply.Json(200, describe(note.get()));
  }

  /**
   * {@code POST /v1/mesh/checkpoint}: the latest checkpoint carrying a witness's cosignature. A
   * checkpoint this steward signed that its log does not hold is evidence of a rollback or a fork
   * (SPEC.md §60.4): grants are suspended and it is answered 409 {@code checkpoint_not_held};
   * anything else gets the cosignature's answers.
   */
  Reply cosign(JsonNode body) throws BindingException, ServeException, LogException {
    String text =
        Endpoints.text(
            body, "checkpoint", "the signed note with the witness's signature line added");
    try {
      // The cosignature checks the note against the log itself (once: its signature by the log
      // key is the costly part) and says NOT_HELD for the evidence of a rollback.
      return new Reply.Json(200, describe(steward.cosign(SignedNote.parse(text))));
    } catch (LogException e) {
      if (e.mismatch().equals(Optional.of(LogException.Mismatch.NOT_HELD))) {
        Reply.Json notHeld =
            ErrorReply.of(
                409,
                "conflict_error",
                "checkpoint_not_held",
                "this steward signed that checkpoint but its log does not hold it: its journal was"
                    + " restored from an older copy, or another journal runs under its key; grants"
                    + " are refused from now on",
                Optional.of("checkpoint"));
        // Showing it again finds the same journal.
        return notHeld.futile();
      }
      return refusal(e, "checkpoint");
    }
  }

  /**
   * {@code GET /v1/mesh/proof/inclusion?seq=N[&size=M]} or {@code ?envelope_id=HEX[&size=M]}:
   * exactly one of the two names the receipt; size defaults to the latest checkpoint.
   */
  Reply inclusion(String query) throws BindingException, ServeException, LogException {
    Map<String, String> q = params(query);
    Optional<Long> seq = number(q, "seq");
    Optional<ContentId> id = envelopeId(q);
    if (seq.isPresent() == id.isPresent()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "seq",
          "name the receipt by exactly one of seq and envelope_id");
    }
    long size = number(q, "size").orElse(latestSize());
    try {
      InclusionProof p =
          seq.isPresent()
              ? steward.inclusionProof(seq.get(), size)
              : steward.inclusionProof(id.get(), size);
      ObjectNode root = NODES.objectNode();
      root.put(
          "sequence", seq.isPresent() ? seq.get() : steward.logSequenceOf(id.get()).orElseThrow());
      root.put("leaf_index", p.leafIndex());
      root.put("tree_size", p.treeSize());
      root.set("path", hashes(p.path()));
      return new Reply.Json(200, root);
    } catch (LogException e) {
      // A leaf below the size asked for exists in a tree of that size, so the size is at fault.
      boolean sizeAtFault = q.containsKey("size") && seq.isPresent() && seq.get() < size;
      return refusal(e, sizeAtFault ? "size" : seq.isPresent() ? "seq" : "envelope_id");
    }
  }

  private static Optional<ContentId> envelopeId(Map<String, String> q) throws BindingException {
    String v = q.get("envelope_id");
    if (v == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(ContentId.fromHex(v));
    } catch (IllegalArgumentException e) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "envelope_id",
          "envelope_id must be the envelope's content id, 64 lowercase hex digits: "
              + e.getMessage());
    }
  }

  /** {@code GET /v1/mesh/proof/consistency?from=M[&to=N]}: to defaults to the latest checkpoint. */
  Reply consistency(String query) throws BindingException, ServeException, LogException {
    Map<String, String> q = params(query);
    long from = number(q, "from").orElseThrow(() -> missing("from"));
    long to = number(q, "to").orElse(latestSize());
    try {
      ConsistencyProof p = steward.consistencyProof(from, to);
      ObjectNode root = NODES.objectNode();
      root.put("from", p.fromSize());
      root.put("to", p.toSize());
      root.set("path", hashes(p.path()));
      return new Reply.Json(200, root);
    } catch (LogException e) {
      // With 0 < from <= to, the proof is refused only because the tree never reached size to.
      boolean toAtFault = q.containsKey("to") && from > 0 && from <= to;
      return refusal(e, toAtFault ? "to" : "from");
    }
  }

  private long latestSize() throws ServeException, LogException {
    return steward
        .checkpoint()
        .map(
            n -> {
              try {
                return Checkpoint.parse(n.text()).size();
              } catch (LogException e) {
                throw new IllegalStateException("the steward's own checkpoint does not parse", e);
              }
            })
        .orElse(0L);
  }

  static ObjectNode describe(SignedNote note) {
    ObjectNode root = NODES.objectNode();
    root.put("checkpoint", note.encoded());
    try {
      Checkpoint c = Checkpoint.parse(note.text());
      root.put("origin", c.origin());
      root.put("size", c.size());
      root.put("root", c.root().base64());
    } catch (LogException e) {
      throw new IllegalStateException("the steward's own checkpoint does not parse", e);
    }
    return root;
  }

  /**
   * Adds a witness's evidence to its answer (SPEC.md §60.4): the receipt's {@code leaf_index},
   * {@code tree_size} and audit {@code path}, and the signed {@code checkpoint} they lead to.
   */
  static void describe(WitnessAnswer.Proof proof, ObjectNode into) {
    into.put("leaf_index", proof.inclusion().leafIndex());
    into.put("tree_size", proof.inclusion().treeSize());
    into.set("path", hashes(proof.inclusion().path()));
    into.put("checkpoint", proof.checkpoint().encoded());
  }

  private static ArrayNode hashes(List<TreeHash> path) {
    ArrayNode out = NODES.arrayNode();
    path.forEach(h -> out.add(h.base64()));
    return out;
  }

  /**
   * The reply to a refused log answer. A log whose tree can no longer be read (SPEC.md §60.8) is
   * the server's fault, not the request's: 503 {@code log_unreadable}, no parameter named, and not
   * worth resending before the operator restarts the steward.
   */
  static Reply.Json refusal(LogException e, @Nullable String param) {
    if (e.reason() == LogException.Reason.UNREADABLE) {
      return ErrorReply.of(
              503,
              "service_unavailable_error",
              "log_unreadable",
              String.valueOf(e.getMessage()),
              Optional.empty())
          .futile();
    }
    int status =
        switch (e.reason()) {
          case OUT_OF_RANGE, NOT_KEPT -> 404;
          case CHECKPOINT_MISMATCH -> 409;
          case UNSIGNED, BAD_SIGNATURE -> 403;
          default -> 400;
        };
    return ErrorReply.invalid(
        status,
        e.reason().name().toLowerCase(Locale.ROOT),
        String.valueOf(e.getMessage()),
        Optional.ofNullable(param));
  }

  private static BindingException missing(String name) {
    return new BindingException(
        BindingException.Reason.INVALID_FIELD, name, name + " is a required query parameter");
  }

  static Optional<Long> number(Map<String, String> q, String name) throws BindingException {
    String v = q.get(name);
    if (v == null) {
      return Optional.empty();
    }
    if (!v.matches("0|[1-9][0-9]*")) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          name,
          name + " must be a non-negative decimal integer");
    }
    String largest = String.valueOf(Long.MAX_VALUE);
    // Digits only, no leading zero: a longer string, or one as long that sorts after, is larger.
    if (v.length() > largest.length()
        || (v.length() == largest.length() && v.compareTo(largest) > 0)) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          name,
          name + " is too large: the largest accepted is " + largest);
    }
    return Optional.of(Long.parseLong(v));
  }

  static Map<String, String> params(String query) throws BindingException {
    Map<String, String> out = new HashMap<>();
    if (query == null || query.isEmpty()) {
      return out;
    }
    for (String pair : query.split("&", 16)) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        k = URLDecoder.decode(k, StandardCharsets.UTF_8);
        v = URLDecoder.decode(v, StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new BindingException(
            BindingException.Reason.INVALID_FIELD, null, "the query string is not URL-encoded");
      }
      if (out.put(k, v) != null) {
        throw new BindingException(BindingException.Reason.INVALID_FIELD, k, k + " is given twice");
      }
    }
    return out;
  }
}
