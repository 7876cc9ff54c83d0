package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.LinkSpend;
import org.meshjava.jcp.SignedGrant;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.Readiness;
import org.meshjava.steward.Steward;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator console (SPEC.md §76): a read-only page and the JSON it polls, served on their own
 * listener. Nothing here changes state: every path answers {@code GET} only (405 otherwise), and
 * the page's assets are a fixed set loaded from the jar at start, so no request names a file.
 *
 * <ul>
 *   <li>{@code GET /console}: the page; {@code /console/console.js}, {@code /console/console.css}:
 *       its assets;
 *   <li>{@code GET /v1/mesh/receipts?limit=N&after=SEQ}: recent receipts, newest first;
 *   <li>{@code GET /v1/mesh/grants}: spend against budget of the grants most recently served on;
 *   <li>{@code GET /v1/mesh/status}: chain head, journal, grant state, meter liveness, per-backend
 *       totals.
 * </ul>
 *
 * <p><b>DNS rebinding.</b> A page bound to loopback can still be read by a web site whose name is
 * made to resolve to 127.0.0.1; such a request carries that site's name in {@code Host}. On a
 * loopback listener a request whose {@code Host} is not a loopback name or address is refused 403
 * {@code host_not_allowed}.
 *
 * <p><b>Peers off loopback.</b> {@code Host} is the client's word; on a loopback listener the
 * peer's own address is checked too. A loopback address is reached from the host itself only while
 * the kernel keeps it so: a route into it (Linux's {@code route_localnet}, which kube-proxy sets,
 * and a DNAT rule; CVE-2020-8558) lets a client on another machine connect, and it may send {@code
 * Host: localhost}. A peer whose address is not loopback is refused 403 {@code host_not_allowed}
 * however it names the host.
 *
 * <p>Thread-safe.
 */
final class ConsoleEndpoints {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleEndpoints.class);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The receipts answered when {@code limit} is not given. */
  static final int DEFAULT_LIMIT = 50;

  /** The one method the console serves, on every path: its {@code Allow}. */
  static final String METHODS = "GET";

  /**
   * Sent with every console answer: nothing is cached, sniffed or framed, and the page loads
   * scripts, styles and data from this listener only.
   */
  static final Map<String, String> HEADERS =
      Map.of(
          "Cache-Control", "no-store",
          "X-Content-Type-Options", "nosniff",
          "X-Frame-Options", "DENY",
          "Referrer-Policy", "no-referrer",
          "Content-Security-Policy",
              "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
                  + " img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");

  /**
   * {@code localhost.} is the same name written absolute (RFC 6761 §6.3 keeps it to loopback), and
   * no one can make a page's own name resolve there by DNS, so it is as safe to answer as {@code
   * localhost}; a browser opened at {@code http://localhost.:PORT/console} sends it.
   */
  private static final Set<String> LOOPBACK_NAMES =
      Set.of("localhost", "localhost.", "127.0.0.1", "[::1]", "::1");

  private final Steward steward;
  private final ConsoleFeed feed;
  private final boolean loopback;
  private final Map<String, Reply.Text> assets;

  /**
   * @param loopback whether the listener is bound to a loopback address, so that {@code Host} is
   *     checked against DNS rebinding
   */
  ConsoleEndpoints(Steward steward, ConsoleFeed feed, boolean loopback) {
    this.steward = steward;
    this.feed = feed;
    this.loopback = loopback;
    Reply.Text page = asset("index.html", "text/html; charset=utf-8");
    this.assets =
        Map.of(
            "/console",
            page,
            "/console/",
            page,
            "/console/console.js",
            asset("console.js", "text/javascript; charset=utf-8"),
            "/console/console.css",
            asset("console.css", "text/css; charset=utf-8"));
  }

  /**
   * Answers one request on the console listener.
   *
   * @param host the request's {@code Host} header, if it sent one
   * @param peer the address of the connection's other end, when it is an IP address
   * @param requestId the request's {@code x-request-id}, which an internal error names
   */
  Reply handle(
      String method,
      String path,
      String query,
      Optional<String> host,
      Optional<InetAddress> peer,
      String requestId) {
    try {
      if (!"GET".equals(method)) {
        return ErrorReply.invalid(
                405, "method_not_allowed", "the console is read-only: use GET, not " + method)
            .allowing(METHODS);
      }
      if (loopback && !peer.map(InetAddress::isLoopbackAddress).orElse(false)) {
        return ErrorReply.of(
            403,
            "permission_error",
            "host_not_allowed",
            "this console is bound to a loopback address and answers clients on this host only;"
                + " this connection came from "
                + peer.map(InetAddress::getHostAddress).orElse("an address that is not IP")
                + ", which is not a loopback address: read the console on this host, or bind it"
                + " to an address its readers may reach (--console-host)",
            Optional.empty());
      }
      if (loopback && !loopbackHost(host)) {
        return ErrorReply.of(
            403,
            "permission_error",
            "host_not_allowed",
            "this console answers requests addressed to a loopback name only (localhost,"
                + " 127.0.0.1, [::1])",
            Optional.empty());
      }
      Reply.Text asset = assets.get(path);
      if (asset != null) {
        return asset;
      }
      return switch (path) {
        case "/v1/mesh/receipts" -> receipts(query);
        case "/v1/mesh/grants" -> grants();
        case "/v1/mesh/status" -> status();
        default ->
            ErrorReply.invalid(
                404,
                "not_found",
                "the console listener serves /console, /v1/mesh/receipts, /v1/mesh/grants and"
                    + " /v1/mesh/status only");
      };
    } catch (BindingException e) {
      return ErrorReply.of(e);
    } catch (RuntimeException e) {
      // What failed may be foreign code (a backend's fidelity, a journal's readiness) whose words
      // throw in turn: out of the logging, that throw would leave with no answer of ours.
      ThrowableWords.log(
          e,
          t ->
              LOG.error(
                  "internal error answering {} {} on the console ({})", method, path, requestId, t),
          kind ->
              LOG.error(
                  "internal error answering {} {} on the console ({}): {}, which cannot be printed",
                  method,
                  path,
                  requestId,
                  kind));
      return ErrorReply.internalError(requestId);
    }
  }

  /** Whether {@code Host} names a loopback name or address (with any port). */
  static boolean loopbackHost(Optional<String> host) {
    if (host.isEmpty()) {
      return false;
    }
    String h = host.get().strip().toLowerCase(Locale.ROOT);
    int colon = h.lastIndexOf(':');
    if (colon > h.lastIndexOf(']') && h.indexOf(':') == colon) {
      h = h.substring(0, colon); // name:port or v4:port; a bare IPv6 literal has several colons
    } else if (h.startsWith("[") && colon > h.lastIndexOf(']')) {
      h = h.substring(0, colon); // [v6]:port
    }
    return LOOPBACK_NAMES.contains(h);
  }

  // ---- GET /v1/mesh/receipts ------------------------------------------------------------------

  private Reply receipts(String query) throws BindingException {
    Map<String, String> q = LogEndpoints.params(query);
    for (String k : q.keySet()) {
      if (!k.equals("limit") && !k.equals("after")) {
        throw new BindingException(
            BindingException.Reason.INVALID_FIELD,
            k,
            "unknown query parameter " + k + "; this endpoint takes limit and after");
      }
    }
    long limit = LogEndpoints.number(q, "limit").orElse((long) DEFAULT_LIMIT);
    if (limit < 1 || limit > ConsoleFeed.RECEIPTS) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "limit",
          "limit must be 1 to " + ConsoleFeed.RECEIPTS + ", not " + limit);
    }
    Optional<Long> after = LogEndpoints.number(q, "after");
    ObjectNode root = NODES.objectNode();
    root.put("object", "list");
    root.put("capacity", ConsoleFeed.RECEIPTS);
    ArrayNode data = root.putArray("data");
    for (ConsoleFeed.Served s : feed.recent((int) limit, after)) {
      data.add(receipt(s));
    }
    return new Reply.Json(200, root);
  }

  private static ObjectNode receipt(ConsoleFeed.Served s) {
    MeshReceipt r = s.receipt();
    ObjectNode o = NODES.objectNode();
    o.put("sequence", r.sequence());
    o.put("sealed_at_ms", s.atMillis());
    o.put("envelope_id", s.envelopeId());
    o.put("request_id", r.requestId().hex());
    o.put("backend", r.backend());
    o.put("recipe", r.recipe());
    o.put("kind", r.isDecision() ? "decision" : "generation");
    o.put("provenance", r.energy().provenance().name());
    o.put("energy_uj", r.energy().uj());
    optional(o, "uj_per_accepted_token", r.ujPerAcceptedToken());
    optional(o, "uj_per_decision", r.ujPerDecision());
    o.put("tokens_in", r.counters().tokensIn());
    o.put("tokens_out", r.counters().tokensOut());
    o.put("tokens_accepted", r.counters().tokensAccepted());
    o.put("fidelity_floor", r.fidelityFloor().name());
    o.put("fidelity_met", r.fidelityMet());
    if (r.grantId().isPresent()) {
      o.put("grant_id", r.grantId().get().hex());
    } else {
      o.putNull("grant_id");
    }
    o.put("status", status(r));
    return o;
  }

  /**
   * One word for the receipt's outcome: {@code ok}; the denial label when the debit breached its
   * grant; {@code fidelity_unmet} when the backend did not meet the floor.
   */
  static String status(MeshReceipt r) {
    if (r.grantBreach().isPresent()) {
      return r.grantBreach().get().wire();
    }
    return r.fidelityMet() ? "ok" : "fidelity_unmet";
  }

  private static void optional(ObjectNode o, String field, java.util.OptionalLong v) {
    if (v.isPresent()) {
      o.put(field, v.getAsLong());
    } else {
      o.putNull(field);
    }
  }

  // ---- GET /v1/mesh/grants --------------------------------------------------------------------

  private Reply grants() {
    ObjectNode root = NODES.objectNode();
    root.put("object", "list");
    root.put("capacity", ConsoleFeed.GRANTS);
    ArrayNode data = root.putArray("data");
    for (GrantChain chain : feed.grants()) {
      ObjectNode g = data.addObject();
      SignedGrant leaf = chain.leaf();
      g.put("grant_id", leaf.id().hex());
      g.put("issuer", chain.root().grant().issuer().value());
      g.put("budget_uj", leaf.grant().budgetUj());
      LinkSpend own = steward.spend().spend(leaf.id());
      g.put("debited_uj", own.debitedUj());
      g.put("reserved_uj", own.reservedUj());
      // What the leaf can still spend here: the least over its chain, as the gate decides.
      g.put("remaining_uj", steward.spend().remainingUj(chain));
      g.put("expires", leaf.grant().expiry().toString());
      ArrayNode links = g.putArray("links");
      for (SignedGrant link : chain.links()) {
        LinkSpend spend = steward.spend().spend(link.id());
        ObjectNode l = links.addObject();
        l.put("grant_id", link.id().hex());
        l.put("budget_uj", link.grant().budgetUj());
        l.put("debited_uj", spend.debitedUj());
        l.put("reserved_uj", spend.reservedUj());
      }
    }
    return new Reply.Json(200, root);
  }

  // ---- GET /v1/mesh/status --------------------------------------------------------------------

  /** Built on the steward's own readiness report, so that it says what a health check says. */
  private Reply status() {
    Readiness ready = steward.readiness();
    ObjectNode root = NODES.objectNode();
    root.put("did", steward.identity().value());
    root.put("now_ms", steward.clock().millis());
    root.put("ready", ready.ready());
    ReadinessJson.write(ready, root, ReadinessJson.Reader.OPERATOR);
    // Serves authorised but never debited when the steward last stopped (§2.2): the console's own
    // count, no part of readiness.
    ((ObjectNode) root.get("journal")).put("unresolved", steward.unresolved().size());
    ArrayNode backends = root.putArray("backends");
    Map<String, ConsoleFeed.Totals> totals = new java.util.HashMap<>();
    feed.totals().forEach(t -> totals.put(t.backend(), t));
    for (ServingEngine e : steward.backends()) {
      ConsoleFeed.Totals t = totals.getOrDefault(e.name(), new ConsoleFeed.Totals(e.name(), 0, 0));
      ObjectNode b = backends.addObject();
      b.put("name", e.name());
      b.put("fidelity", e.fidelity().name());
      b.put("serves", t.serves());
      b.put("energy_uj", t.energyUj());
    }
    return new Reply.Json(200, root);
  }

  private static Reply.Text asset(String name, String contentType) {
    try (InputStream in = ConsoleEndpoints.class.getResourceAsStream("console/" + name)) {
      if (in == null) {
        throw new IllegalStateException("the console asset " + name + " is missing from the jar");
      }
      return new Reply.Text(
          200, contentType, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the console asset " + name, e);
    }
  }
}
