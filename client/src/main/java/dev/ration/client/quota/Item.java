package dev.ration.client.quota;

/**
 * One resource and amount of a reservation.
 *
 * @param resource the resource reserved (a catalog entry's resource)
 * @param amount how much, in the entry's unit, positive
 */
public record Item(String resource, long amount) {}
