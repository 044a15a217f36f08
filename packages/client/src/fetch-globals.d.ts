// The generated client names fetch's `BodyInit`, which the DOM library declares and Node's global types leave out.
// A page's build (the dashboard's, with the DOM library) never includes this file; Node builds of the client do.
type BodyInit = NonNullable<RequestInit['body']>;
