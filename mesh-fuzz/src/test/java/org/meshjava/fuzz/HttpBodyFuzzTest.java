package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import org.meshjava.openai.BindingException;
import org.meshjava.openai.GrantedServeRequest;

/** Request bodies read as the HTTP binding reads them, then derived for each endpoint. */
class HttpBodyFuzzTest {
  @FuzzTest(maxDuration = "20s")
  void body(byte[] input) {
    Hostile.only(
        () -> {
          JsonNode body = GrantedServeRequest.parseBody(input);
          for (GrantedServeRequest.Endpoint endpoint : GrantedServeRequest.Endpoint.values()) {
            Hostile.only(() -> GrantedServeRequest.derive(body, endpoint), BindingException.class);
          }
          Hostile.only(() -> GrantedServeRequest.refuseUnserved(body), BindingException.class);
        },
        BindingException.class);
  }
}
