package dev.ration.protocol;

/**
 * A decoded request payload: the client's timeout ({@code 0} = use the server's default) and
 * the message.
 */
public record DecodedRequest(int timeoutMillis, Request request) {}
