package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * An option left empty asks for nothing and is served; the same option with a value is refused
 * (SPEC.md section 70). SDKs send {@code "stop": ""} for "no stop sequence".
 */
class UnservedOptionsEmptyTest {

  @Test
  void anEmptyStringOrArray_asksForNothing_aValueIsRefused() throws Exception {
    for (String empty : new String[] {"\"\"", "[]", "null"}) {
      for (String field : new String[] {"stop", "tools", "functions"}) {
        assertThatCode(
                () ->
                    UnservedOptions.check(
                        Fixture.JSON.readTree("{\"" + field + "\":" + empty + "}"),
                        GrantedServeRequest.Endpoint.CHAT_COMPLETIONS))
            .as(field + " " + empty)
            .doesNotThrowAnyException();
      }
    }
    assertThatThrownBy(
            () ->
                UnservedOptions.check(
                    Fixture.JSON.readTree("{\"stop\":\"END\"}"),
                    GrantedServeRequest.Endpoint.CHAT_COMPLETIONS))
        .isInstanceOf(BindingException.class)
        .hasMessageStartingWith("stop: ");
  }
}
