/** `{ key: value }` when the store holds a value, `{}` when it holds none: returned objects never carry null keys. */
export function optionalField<K extends string>(key: K, value: string | null | undefined): { [P in K]?: string } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
