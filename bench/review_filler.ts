/** Sentences the review benches pad made-up reviews with, so texts are of a real review's length. */
export const REVIEW_FILLER = [
  "I have been using this app for a few months now and mostly it does what it promises.",
  "The last update changed the layout and it took me a while to find the settings again.",
  "Checkout works but the payment page sometimes takes ages to load on mobile data.",
  "Support answered within a day, which I appreciate, though the fix took another week.",
  "Please bring back the option to sort by price, it was the main reason I used it.",
  "Notifications are too frequent and I cannot turn off the marketing ones separately.",
];
