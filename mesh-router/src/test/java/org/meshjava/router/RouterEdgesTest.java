package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeRequest;

/**
 * Edges of §4 routing the other router tests leave open (each found by a surviving PIT mutant,
 * docs/mutation.md): the largest ceiling and a saturated estimate, an operator's cap looser than
 * the engine's own limit, a caller's cap map changed after the router was built, a backend with no
 * rating or whose estimate throws, and the words of a refusal staying on one line.
 */
class RouterEdgesTest {
  private static ServeRequest request(long promptTokens, long ceilingUj) {
    return ServeRequest.generation(
        ContentId.ofBytes(new byte[] {3}),
        promptTokens,
        new ServeBounds(20, Fidelity.F1, ceilingUj));
  }

  private static final ServeRequest REQUEST = request(10, 1_000_000);

  /** A backend over {@code inner} answering {@code limits} and {@code rating} of its own. */
  private static final class Custom extends ForwardingEngine {
    private final ServeLimits limits;
    private final Fidelity rating;
    private final RuntimeException costThrows;

    Custom(StubBackend inner, ServeLimits limits, Fidelity rating, RuntimeException costThrows) {
      super(inner);
      this.limits = limits;
      this.rating = rating;
      this.costThrows = costThrows;
    }

    @Override
    public ServeLimits limits() {
      return limits;
    }

    @Override
    public Fidelity fidelity() {
      return rating;
    }

    @Override
    public CostProfile costProfile() {
      if (costThrows != null) {
        throw costThrows;
      }
      return super.costProfile();
    }
  }

  @Test
  void theLargestCeiling_admitsABackendWhoseEstimateSaturates() throws Exception {
    // Both estimates saturate at Long.MAX_VALUE, which the largest ceiling still covers: the first
    // registered is chosen, never "no admissible backend".
    Router router =
        new Router(
            List.of(
                StubBackend.of("first", Fidelity.F2, Long.MAX_VALUE),
                StubBackend.of("second", Fidelity.F2, Long.MAX_VALUE)));

    RouteDecision d = router.route(request(10, Long.MAX_VALUE));

    assertThat(d.chosen().name()).isEqualTo("first");
    assertThat(d.chosenCandidate().estimateUj()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aCapLooserThanTheEngine_leavesTheEnginesOwnLimit() throws Exception {
    StubBackend inner = StubBackend.of("small", Fidelity.F2, 1);
    ServeLimits own = ServeLimits.NONE.withMaxPromptTokens(5);
    Custom small = new Custom(inner, own, Fidelity.F2, null);
    Router router =
        new Router(List.of(small), Map.of("small", ServeLimits.NONE.withMaxPromptTokens(100)));

    assertThat(router.limits(small).maxPromptTokens()).isEqualTo(5);
    assertThatThrownBy(() -> router.route(REQUEST))
        .isInstanceOfSatisfying(
            NoAdmissibleBackendException.class,
            e ->
                assertThat(e.candidates().getFirst().inadmissibility().orElseThrow().kind())
                    .isEqualTo(Inadmissibility.Kind.OVER_LIMIT));
  }

  @Test
  void aCapMapChangedAfterwards_changesNothing() throws Exception {
    Map<String, ServeLimits> caps = new HashMap<>();
    Router router = new Router(List.of(StubBackend.of("only", Fidelity.F2, 1)), caps);
    caps.put("only", ServeLimits.NONE.withMaxPromptTokens(1));
    caps.put("nobody", ServeLimits.NONE);

    assertThat(router.route(REQUEST).chosen().name()).isEqualTo("only");
    assertThat(router.limits(router.backends().getFirst())).isEqualTo(ServeLimits.NONE);
  }

  @Test
  void aBackendWithNoRating_isRefusedAtF0_andAnotherServes() throws Exception {
    Custom unrated =
        new Custom(StubBackend.of("unrated", Fidelity.F3, 1), ServeLimits.NONE, null, null);
    Router router = new Router(List.of(unrated, StubBackend.of("rated", Fidelity.F2, 10)));

    RouteDecision d = router.route(REQUEST);

    assertThat(d.chosen().name()).isEqualTo("rated");
    RouteCandidate refused = d.candidates().getFirst();
    assertThat(refused.fidelity()).isEqualTo(Fidelity.F0);
    assertThat(refused.inadmissibility().orElseThrow().kind())
        .isEqualTo(Inadmissibility.Kind.NOT_PERMITTED);
    assertThat(refused.inadmissibility().orElseThrow().thrown())
        .hasValueSatisfying(t -> assertThat(t).contains("fidelity()"));
  }

  @Test
  void aBackendWhoseEstimateThrows_isRecordedAtZero_andItsWordsOnOneLine() throws Exception {
    Custom broken =
        new Custom(
            StubBackend.of("broken", Fidelity.F3, 1),
            ServeLimits.NONE,
            Fidelity.F3,
            new IllegalStateException("first\nsecond\rthird"));
    Router router = new Router(List.of(broken, StubBackend.of("healthy", Fidelity.F2, 10)));

    RouteDecision d = router.route(REQUEST);

    RouteCandidate refused = d.candidates().getFirst();
    assertThat(refused.estimateUj()).isZero();
    assertThat(refused.fidelity()).isEqualTo(Fidelity.F0);
    assertThat(refused.inadmissibility().orElseThrow().thrown())
        .hasValue("java.lang.IllegalStateException: first second third");
  }

  @Test
  void aNameWithLineBreaks_isRefused_namedOnOneLine() {
    assertThatThrownBy(
            () -> new Router(List.of(StubBackend.of("evil\nname\rhere", Fidelity.F2, 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a backend name must be non-empty Unicode text (no unpaired surrogate), without"
                + " control, line-separator or format characters: 'evil<U+000A>name<U+000D>here'");
  }

  /**
   * A refused character shown as a space (a tab, a bidirectional override, a zero-width space)
   * could not be found by the operator reading the refusal: each is named by its code point.
   */
  @Test
  void aNameWithAnInvisibleCharacter_isRefused_namingItsCodePoint() {
    for (String[] c :
        new String[][] {
          {"\t", "U+0009"}, {"\u202e", "U+202E"}, {"\u200b", "U+200B"}, {"\u001b", "U+001B"}
        }) {
      assertThatThrownBy(
              () -> new Router(List.of(StubBackend.of("gpu" + c[0] + "1", Fidelity.F2, 1))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageEndingWith(": 'gpu<" + c[1] + ">1'");
    }
  }

  /**
   * A rule's words may echo the request's {@code model} (the steward's model rule does), and an
   * engine's message is its own: neither may carry a line end some reader breaks on (NEL, U+2028,
   * U+2029), a terminal escape or a format character into the candidate's detail, which goes into
   * refusals and JSON, or its throw, which goes into logs.
   */
  @Test
  void echoedWords_ofARuleOrAnEngine_areOneSafeLine() throws Exception {
    String hostile = "m\u2028x\u2029y\u0085z\u001b[31m\u202eq";
    String safe = "m x y z<U+001B>[31m<U+202E>q";
    AdmissionRule echoing = b -> Optional.of("not the model the request names (" + hostile + ")");
    NoAdmissibleBackendException refused =
        catchThrowableOfType(
            NoAdmissibleBackendException.class,
            () ->
                new Router(List.of(StubBackend.of("gpu", Fidelity.F3, 1))).route(REQUEST, echoing));
    assertThat(refused.candidates().getFirst().inadmissibility().orElseThrow().detail())
        .isEqualTo("not permitted: not the model the request names (" + safe + ")");

    Custom broken =
        new Custom(
            StubBackend.of("broken", Fidelity.F3, 1),
            ServeLimits.NONE,
            Fidelity.F3,
            new IllegalStateException(hostile));
    RouteDecision d =
        new Router(List.of(broken, StubBackend.of("healthy", Fidelity.F2, 10))).route(REQUEST);
    assertThat(d.candidates().getFirst().inadmissibility().orElseThrow().thrown())
        .hasValue("java.lang.IllegalStateException: " + safe);
  }

  /**
   * A lone surrogate (a name cut in the middle of an emoji, or a config's {@code "\\ud83d"}) has no
   * UTF-8: it was registered, and every serve routed to it ran, was debited from the grant, and
   * then failed sealing its receipt. It is refused at registration, and the refusal holds none.
   */
  @Test
  void aNameWithAnUnpairedSurrogate_isRefusedAtRegistration() {
    for (String bad : new String[] {"gpu-\ud83d", "a\ud800b", "\udc00x", "x\ude00\ud83d"}) {
      assertThatThrownBy(() -> new Router(List.of(StubBackend.of(bad, Fidelity.F2, 1))))
          .as("%s", bad.chars().mapToObj(Integer::toHexString).toList())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("a backend name must be non-empty Unicode text")
          .satisfies(
              e ->
                  assertThat(e.getMessage().codePoints())
                      .noneMatch(c -> Character.getType(c) == Character.SURROGATE));
    }
  }

  /**
   * Java calls none of these a control character, but a JSON reader in JavaScript ends a line at
   * U+2028 and U+2029, a log viewer may too, and a format character (a bidirectional override, a
   * zero-width space, a byte-order mark) makes a name print as another: each is refused at
   * registration, and the refusal's own words hold none of them.
   */
  @Test
  void aNameWithALineOrParagraphSeparatorOrAFormatCharacter_isRefused_namedOnOneLine() {
    for (String bad :
        new String[] {
          "a\u2028b", "a\u2029b", "a\u0085b", "a\u202eb", "a\u200bb", "\ufeffab", "a\udb40\udc01b"
        }) {
      assertThatThrownBy(() -> new Router(List.of(StubBackend.of(bad, Fidelity.F2, 1))))
          .as("%s", bad.codePoints().mapToObj(Integer::toHexString).toList())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("a backend name must be non-empty")
          .hasMessageNotContaining(bad.replaceAll("[ab]", ""));
    }
  }

  @Test
  void aNameOfLettersBeyondAscii_isRegistered() throws Exception {
    Router router = new Router(List.of(StubBackend.of("ünï☃-中-😀", Fidelity.F2, 1)));
    assertThat(router.route(REQUEST).chosen().name()).isEqualTo("ünï☃-中-😀");
  }
}
