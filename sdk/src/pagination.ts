import type { Page } from './types.js';

/**
 * What a list method returns: `await` it for the first page, or iterate it for every item across pages
 * (`for await (const order of client.orders.list({ state: 'confirmed' }))`), following `next_cursor`
 * while `has_more`. Nothing is requested until one of these is used.
 */
export class ListResult<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  #first: Promise<Page<T>> | undefined;

  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  #firstPage(): Promise<Page<T>> {
    this.#first ??= this.fetchPage(undefined);
    return this.#first;
  }

  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  /** Every page, in order. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page = await this.#firstPage();
    yield page;
    while (page.has_more && page.next_cursor) {
      page = await this.fetchPage(page.next_cursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item in one array; refuses to grow past `max` (default 10 000) instead of exhausting memory. */
  async toArray({ max = 10_000 }: { max?: number } = {}): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= max) throw new RangeError(`list has more than ${max} items; iterate it instead`);
      out.push(item);
    }
    return out;
  }
}
